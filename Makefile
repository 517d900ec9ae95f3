# Bun comes from the npm registry (devDependency), so Node and npm are all a machine needs.
BUN := node_modules/.bin/bun
SOURCES := $(shell find src migrations -type f) package.json

.PHONY: run test build typecheck migrations bench clean install

run: install
	$(BUN) src/main.ts serve

test: install build
	$(BUN) test --timeout 30000

build: dist/gateway

dist/gateway: node_modules/.installed $(SOURCES)
	$(BUN) build --compile --minify --sourcemap src/main.ts --outfile dist/gateway

typecheck: install
	node_modules/.bin/tsc --noEmit

install: node_modules/.installed

node_modules/.installed: package.json package-lock.json
	npm ci --no-audit --no-fund
	@touch $@

# After changing src/db/schema/sqlite.ts: derive pg.ts, generate SQL for both dialects and embed it in the binary.
migrations: install
	$(BUN) scripts/schema-pg.ts
	node_modules/.bin/drizzle-kit generate --config drizzle.sqlite.config.ts
	node_modules/.bin/drizzle-kit generate --config drizzle.pg.config.ts
	$(BUN) scripts/embed-migrations.ts

bench: install build
	$(BUN) bench/run.ts

clean:
	rm -rf dist node_modules
