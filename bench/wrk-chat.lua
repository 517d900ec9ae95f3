-- Sends the benchmark's chat request, rotating through the API keys in BENCH_KEYS so that no
-- account has more requests in flight than the gateway allows (3 by default).
local keys = {}
for line in io.lines(os.getenv("BENCH_KEYS")) do keys[#keys + 1] = line end
local body = os.getenv("BENCH_BODY")
local path = os.getenv("BENCH_PATH")
local counter = 0

request = function()
  counter = counter + 1
  local headers = { ["Content-Type"] = "application/json", ["Authorization"] = "Bearer " .. keys[(counter % #keys) + 1] }
  return wrk.format("POST", path, headers, body)
end
