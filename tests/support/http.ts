/** A response body as JSON, loosely typed: tests assert its shape with expect(). */
export const readJson = async (res: Response): Promise<any> => res.json();
