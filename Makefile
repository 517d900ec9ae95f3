# Bun comes from the npm registry (devDependency), so Node and npm are all a machine needs.
BUN := node_modules/.bin/bun
SOURCES := $(shell find src migrations -type f) package.json
# Derived from tracked sources, never committed (so that duplicate scans and reviews skip them):
# the Postgres schema from the SQLite one, and the migrations embedded in the binary.
GENERATED := src/db/schema/pg.gen.ts src/db/migrations.gen.ts

.PHONY: run test build typecheck migrations bench clean install

run: install
	$(BUN) src/main.ts serve

test: install build
	$(BUN) test --timeout 30000

build: dist/gateway

dist/gateway: node_modules/.installed $(GENERATED) $(SOURCES)
	$(BUN) build --compile --minify --sourcemap src/main.ts --outfile dist/gateway

typecheck: install
	node_modules/.bin/tsc --noEmit

install: node_modules/.installed $(GENERATED)

src/db/schema/pg.gen.ts: src/db/schema/sqlite.ts src/db/schema/derive-pg.ts node_modules/.installed
	$(BUN) scripts/schema-pg.ts

src/db/migrations.gen.ts: $(shell find migrations -name '*.sql') src/db/migration-files.ts node_modules/.installed
	$(BUN) scripts/embed-migrations.ts

node_modules/.installed: package.json package-lock.json
	npm ci --no-audit --no-fund
	@touch $@

# After changing src/db/schema/sqlite.ts: derive pg.gen.ts, generate SQL for both dialects and embed it in the binary.
migrations: install
	$(BUN) scripts/schema-pg.ts
	node_modules/.bin/drizzle-kit generate --config drizzle.sqlite.config.ts
	node_modules/.bin/drizzle-kit generate --config drizzle.pg.config.ts
	$(BUN) scripts/embed-migrations.ts

bench: install build
	$(BUN) bench/run.ts

clean:
	rm -rf dist node_modules
