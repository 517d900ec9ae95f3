import { defineConfig } from "drizzle-kit";

export default defineConfig({
  dialect: "postgresql",
  schema: "./src/db/schema/pg.gen.ts",
  out: "./migrations/postgres",
});
