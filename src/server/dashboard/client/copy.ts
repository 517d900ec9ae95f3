/**
 * Copies `text`: the Clipboard API where the page is a secure context, else the older copy
 * command on `shown` (the input or block showing it), selected for the purpose.
 */
export async function copyText(text: string, shown: HTMLElement): Promise<boolean> {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    // Plain http on a public address has no Clipboard API; a selection can still be copied.
    if (shown instanceof HTMLInputElement) shown.select();
    else getSelection()?.selectAllChildren(shown);
    return document.execCommand("copy");
  }
}
