-- Sends the benchmark's chat request, rotating through the API keys in BENCH_KEYS so that no
-- account has more requests in flight than the gateway allows (3 by default). With
-- BENCH_BODIES, each key sends its own body (the file's line of the same number).
local keys = {}
for line in io.lines(os.getenv("BENCH_KEYS")) do keys[#keys + 1] = line end
local body = os.getenv("BENCH_BODY")
local bodies = nil
if os.getenv("BENCH_BODIES") then
  bodies = {}
  for line in io.lines(os.getenv("BENCH_BODIES")) do bodies[#bodies + 1] = line end
end
local path = os.getenv("BENCH_PATH")
local counter = 0

request = function()
  counter = counter + 1
  local i = (counter % #keys) + 1
  local headers = { ["Content-Type"] = "application/json", ["Authorization"] = "Bearer " .. keys[i] }
  return wrk.format("POST", path, headers, bodies and bodies[i] or body)
end
