// Loaded with `node --import` by the benchmark: reports the process's peak resident memory at exit.
process.on('exit', () => {
  process.stderr.write(`\nBENCH maxrss_kb=${process.resourceUsage().maxRSS}\n`);
});
