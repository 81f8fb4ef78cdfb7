/**
 * The terminal's output closed by its reader: `shieldwatch check | head -5` once `head` has its lines. Node
 * ignores SIGPIPE, so the next write fails with EPIPE, emitted as an `'error'` event on process.stdout; with no
 * listener that event is an uncaught exception and a stack trace. Here it is listened for: the stream is
 * destroyed by the error, so later writes are dropped without another error, and the returned signal says the
 * output is gone, for the commands that would otherwise go on writing into nothing (`run`, `simulate`, `demo`
 * stop as on Ctrl-C). A command that ends by itself finishes what it was doing and keeps its exit code (so
 * `check | head -5` still says in `$PIPESTATUS` whether the monitor is ready).
 */
export function watchClosedOutput(streams: readonly NodeJS.WritableStream[]): AbortSignal {
  const closed = new AbortController();
  for (const stream of streams) {
    // Any write error means the same here: nothing more can be shown there, and nowhere else to say so.
    stream.on('error', (error: NodeJS.ErrnoException) => {
      if (!closed.signal.aborted) closed.abort(error);
    });
  }
  return closed.signal;
}
