# Bun comes from the npm registry (devDependency), so Node and npm are all a machine needs.
BUN := node_modules/.bin/bun
SOURCES := $(shell find src migrations -type f) package.json
# Derived from tracked sources, never committed (so that duplicate scans and reviews skip them):
# the Postgres schema (pg.gen.ts and pg/) from the SQLite one, and the migrations embedded in the binary.
GENERATED := src/db/schema/pg.gen.ts src/db/migrations.gen.ts

.PHONY: run test build typecheck migrations bench bench-ab bench-tools clean install

run: install
	$(BUN) src/main.ts serve

# With Postgres (TEST_DATABASE_URL) and PgBouncer at hand, part of the Postgres suite runs a
# second time through PgBouncer in transaction-pooling mode, as managed Postgres offers are
# deployed: every store statement (tests/db), the scale tests, and the Postgres variants of the
# HTTP tests of the request path (chat, Messages, Responses), keys and organizations, and of the
# account e-mails' wipe. (All of tests/integration passes that way, but twice would take
# make test past its twenty minutes.)
POOLED_HTTP_TESTS := $(addprefix tests/integration/,chat. keys. messages. responses. orgs stream-disconnect secrets-on-disk)
# The main run spreads the files over three worker processes: most of its time is spent waiting
# on the binaries, servers and browsers the tests start (one process used a quarter of a core),
# and every file has its own databases and ports. On a 2-core host: 11 minutes instead of 15.
# The Python SDK tests install a missing SDK into node_modules/.cache/python (tests/support/python.ts), never into the system Python.
test: install build
	$(BUN) test --timeout 30000 --parallel=3
	@if [ -n "$$TEST_DATABASE_URL" ] && { command -v pgbouncer >/dev/null 2>&1 || [ -x /usr/sbin/pgbouncer ]; }; then \
	  echo "tests/db, tests/scale and the request path's HTTP tests on Postgres again, through PgBouncer (transaction pooling):"; \
	  TEST_DATABASE_POOLER=pgbouncer $(BUN) test --timeout 60000 tests/db tests/scale && \
	  TEST_DATABASE_POOLER=pgbouncer $(BUN) test --timeout 60000 -t '\[postgres\]' $(POOLED_HTTP_TESTS); \
	fi

build: dist/gateway

# The commit the binary is built from (gateway --version, the start-up log line, /metrics);
# "unknown" outside a git checkout. dist/.commit changes only when the commit does, so a new
# commit rebuilds the binary and an unchanged one does not.
BUILD_COMMIT := $(shell git rev-parse --short HEAD 2>/dev/null || echo unknown)

.PHONY: build-commit
dist/.commit: build-commit
	@mkdir -p dist
	@echo '$(BUILD_COMMIT)' | cmp -s - $@ || echo '$(BUILD_COMMIT)' > $@

dist/gateway: node_modules/.installed $(GENERATED) $(SOURCES) dist/.commit
	$(BUN) build --compile --minify --sourcemap --define 'BUILD_COMMIT="$(BUILD_COMMIT)"' src/main.ts src/db/checkpoint-worker.ts --outfile dist/gateway

typecheck: install
	node_modules/.bin/tsc --noEmit

install: node_modules/.installed $(GENERATED)

src/db/schema/pg.gen.ts: src/db/schema/sqlite.ts $(wildcard src/db/schema/sqlite/*.ts) src/db/schema/derive-pg.ts node_modules/.installed
	$(BUN) scripts/schema-pg.ts

src/db/migrations.gen.ts: $(shell find migrations -name '*.sql') src/db/migration-files.ts node_modules/.installed
	$(BUN) scripts/embed-migrations.ts

node_modules/.installed: package.json package-lock.json
	npm ci --no-audit --no-fund
	@touch $@

# After changing the schema (src/db/schema/sqlite/): derive the Postgres one, generate SQL for both dialects and embed it in the binary.
migrations: install
	$(BUN) scripts/schema-pg.ts
	node_modules/.bin/drizzle-kit generate --config drizzle.sqlite.config.ts
	node_modules/.bin/drizzle-kit generate --config drizzle.pg.config.ts
	$(BUN) scripts/embed-migrations.ts

# The load generator is Debian's wrk, installed on first use as .ci/run installs its tools.
WRK := $(shell command -v wrk 2>/dev/null)
bench-tools:
ifeq ($(WRK),)
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq wrk || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq wrk; }
endif

bench: install build bench-tools
	$(BUN) bench/run.ts

# Another revision's binary (A) against the working tree's (B), interleaved on the same cells; bench/AB.md.
#   make bench-ab REV=938c335 [ROUNDS=5] [SECONDS=5] [ACCOUNTS=100] [SQLITE_ONLY=1]
# (`make bench-ab 938c335` works too: the second goal is taken as REV.)
ifeq ($(firstword $(MAKECMDGOALS)),bench-ab)
ifeq ($(origin REV),undefined)
REV := $(word 2,$(MAKECMDGOALS))
ifneq ($(REV),)
$(eval $(REV):;@:)
endif
endif
ifeq ($(REV),)
$(error usage: make bench-ab REV=<git revision> [ROUNDS=5] [SECONDS=5] [ACCOUNTS=100] [SQLITE_ONLY=1])
endif
endif
bench-ab: install build bench-tools
	$(BUN) bench/ab.ts $(REV) $(if $(ROUNDS),--rounds $(ROUNDS)) $(if $(SECONDS),--seconds $(SECONDS)) $(if $(ACCOUNTS),--accounts $(ACCOUNTS)) $(if $(SQLITE_ONLY),--sqlite-only)

clean:
	rm -rf dist node_modules
