// CLI: validate every example of a contract root against its schema. Usage: tsx scripts/contract/check-examples.ts [root]
import path from "node:path";
import { bundleContract, collectExamples, exampleProblems, SPEC_ROOT } from "../lib/contract.js";

const root = path.resolve(process.argv[2] ?? SPEC_ROOT);
const doc = await bundleContract(root, true);
const problems = exampleProblems(doc);
for (const p of problems) console.error(`✗ ${p}`);
console.log(`${collectExamples(doc).length} examples checked, ${problems.length} invalid`);
process.exit(problems.length ? 1 : 0);
