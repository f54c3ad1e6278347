// A vitest reporter that says where a test run's time goes: per file, the time to import it (collect: its modules
// and every describe body), its setup files, its tests and hooks; then the slowest tests. Use it as
// `npx vitest run --project fast --reporter=default --reporter=./bench/vitest-timings.mjs`; it writes its table to
// stdout at the end of the run and the rows as JSON to $VITEST_TIMINGS (when set), for comparing two runs.
import { writeFileSync } from "node:fs";
import { relative } from "node:path";

const seconds = (ms) => (ms / 1000).toFixed(1).padStart(6);

export default class TimingsReporter {
  onTestRunEnd(testModules) {
    const files = [];
    const tests = [];
    for (const module of testModules) {
      const d = module.diagnostic();
      const file = relative(process.cwd(), module.moduleId);
      const row = {
        file,
        project: module.project.name,
        prepare: d.prepareDuration,
        collect: d.collectDuration,
        setup: d.setupDuration,
        tests: d.duration,
      };
      row.total = row.prepare + row.collect + row.setup + row.tests;
      files.push(row);
      for (const test of module.children.allTests()) {
        tests.push({ file, name: test.fullName, ms: test.diagnostic()?.duration ?? 0 });
      }
    }
    files.sort((a, b) => b.total - a.total);
    tests.sort((a, b) => b.ms - a.ms);
    const sum = (key) => files.reduce((s, f) => s + f[key], 0);
    const lines = [`files ${files.length}, tests ${tests.length}; seconds summed over files (wall, per worker):`];
    lines.push(
      `prepare ${seconds(sum("prepare"))}  collect ${seconds(sum("collect"))}  setup ${seconds(sum("setup"))}  tests ${seconds(sum("tests"))}  total ${seconds(sum("total"))}`,
    );
    lines.push("", " total collect   tests  file");
    for (const f of files.slice(0, 40)) lines.push(`${seconds(f.total)} ${seconds(f.collect)} ${seconds(f.tests)}  ${f.file}`);
    lines.push("", "slowest tests:");
    for (const t of tests.slice(0, 40)) lines.push(`${seconds(t.ms)}  ${t.file} :: ${t.name.slice(0, 120)}`);
    process.stdout.write(`\n${lines.join("\n")}\n`);
    if (process.env.VITEST_TIMINGS) writeFileSync(process.env.VITEST_TIMINGS, JSON.stringify({ files, tests }, null, 1));
  }
}
