package org.meshjava.conformance.pack;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.meshjava.conformance.pack.internal.JsonUtf8;

/**
 * A subject under test running as a child process, spoken to in JSON lines: one request object per
 * line on its standard input, one answer object per line on its standard output. Nothing about the
 * subject is assumed but that; it may be written in any language.
 *
 * <p>An answer that does not arrive within the timeout (the request's writing included: a subject
 * that stops reading its input is not waited on past it), or a subject that has exited, gives an
 * empty answer, which the runner counts as a skip. After a timeout the subject is considered gone
 * (a late answer would be taken for the next request's) and is ended at once, with every process it
 * was seen to have started; {@link #close()} ends those too, even once the subject itself has
 * exited. Standard error is drained and its tail kept for the report.
 *
 * <p>What a subject writes is bounded, since it may be broken: a line longer than {@link
 * #MAX_ANSWER_BYTES} ends the subject as if it had exited (an answer is a few kilobytes), and at
 * most {@link #QUEUED_ANSWERS} lines wait unread, after which the subject's writes block until they
 * are asked for. Not thread-safe: one request at a time.
 */
public final class SubjectProcess implements AutoCloseable {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String EOF = "\u0000eof";
  private static final int STDERR_TAIL = 4096;
  private static final Duration STDERR_WAIT = Duration.ofSeconds(1);

  /** The longest answer line read; a longer one ends the subject. */
  public static final int MAX_ANSWER_BYTES = 4 << 20;

  /** How many lines of the subject's standard error {@link #stderrLines} keeps. */
  public static final int STDERR_LINES = 10;

  /** Answer lines held before the subject's writes block. */
  public static final int QUEUED_ANSWERS = 16;

  private final Process process;
  private final OutputStream stdin;
  private final BlockingQueue<String> lines = new LinkedBlockingQueue<>(QUEUED_ANSWERS);
  private final StringBuilder stderrTail = new StringBuilder();
  private final Duration timeout;
  private final Thread out;
  private final Thread err;
  private final Thread reaper;

  /**
   * Writes the requests, so that a subject that does not read them cannot hold {@link #ask} past
   * its timeout: a request larger than the pipe's buffer (64 KiB on Linux) blocks its writer until
   * the subject reads it.
   */
  private final ExecutorService writer =
      Executors.newSingleThreadExecutor(
          r -> {
            Thread t = new Thread(r, "subject-stdin");
            t.setDaemon(true);
            return t;
          });

  /** The last request's write; done unless the subject stopped reading in the middle of one. */
  private Future<?> writing = CompletableFuture.completedFuture(null);

  private boolean gone;

  /**
   * Every process the subject was seen to have started, seen while the subject ran: once it exits,
   * what it started is no longer its descendant (it goes to init), and only this still names it.
   */
  private final Set<ProcessHandle> started = ConcurrentHashMap.newKeySet();

  /**
   * The machine's fork count ({@link #forks}) read just before the last look for what the subject
   * started completed; {@code -1} before the first.
   */
  private volatile long forksSeen = -1;

  /**
   * Whether {@link #forks} is seen to count: it grew when the subject was started. A system where
   * the line is absent, or does not move, has every look made.
   */
  private final boolean forksCount;

  private SubjectProcess(Process process, Duration timeout, boolean forksCount) {
    this.process = process;
    this.forksCount = forksCount;
    this.stdin = process.getOutputStream();
    this.timeout = timeout;
    this.out = new Thread(() -> pump(process.getInputStream()), "subject-stdout");
    out.setDaemon(true);
    out.start();
    this.err = new Thread(() -> drain(process.getErrorStream()), "subject-stderr");
    err.setDaemon(true);
    err.start();
    // A runner stopped by SIGTERM or Ctrl-C takes its subject with it, not leaving it running.
    this.reaper = new Thread(this::end, "subject-reaper");
    Runtime.getRuntime().addShutdownHook(reaper);
  }

  /**
   * Starts {@code command} as a subject: a shell command line ({@code sh -c}, or {@code cmd /c} on
   * Windows).
   *
   * @throws IOException if it cannot be started
   */
  public static SubjectProcess start(String command, Duration timeout) throws IOException {
    Objects.requireNonNull(command, "command");
    boolean windows =
        System.getProperty("os.name", "").toLowerCase(java.util.Locale.ROOT).startsWith("windows");
    List<String> argv = windows ? List.of("cmd", "/c", command) : List.of("sh", "-c", command);
    return start(argv, timeout);
  }

  /**
   * Starts the program {@code argv} as a subject, without a shell.
   *
   * @throws IOException if it cannot be started
   */
  public static SubjectProcess start(List<String> argv, Duration timeout) throws IOException {
    long before = forks();
    Process process = new ProcessBuilder(argv).start();
    return new SubjectProcess(process, timeout, before >= 0 && forks() > before);
  }

  /**
   * Sends one request and waits for its answer.
   *
   * @return the answer: a JSON object; or, for a line that is not one (not JSON, a JSON array or
   *     number, JSON nested deeper than the parser reads, a line cut short by an exit), that line
   *     as a JSON string, which is an answer all the same and fails its case; or empty when the
   *     subject gave no line (exited or timed out)
   */
  public Optional<JsonNode> ask(JsonNode request) {
    if (gone) {
      return Optional.empty();
    }
    noteStarted();
    try {
      long deadline = System.nanoTime() + timeout.toNanos();
      byte[] bytes = JsonUtf8.bytes(JSON.writeValueAsString(request) + "\n");
      writing =
          writer.submit(
              () -> {
                stdin.write(bytes);
                stdin.flush();
                return null;
              });
      // The request is written within the timeout, and answered within what is left of it.
      writing.get(timeout.toNanos(), TimeUnit.NANOSECONDS);
      String line = lines.poll(deadline - System.nanoTime(), TimeUnit.NANOSECONDS);
      if (line == null) {
        return timeOut();
      }
      noteStarted();
      if (line.equals(EOF)) {
        gone = true;
        return Optional.empty();
      }
      return Optional.of(object(line));
    } catch (TimeoutException e) {
      // Not written in time: the subject reads no more of its input.
      return timeOut();
    } catch (IOException | ExecutionException e) {
      // Not written: the subject exited.
      gone = true;
      return Optional.empty();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      gone = true;
      return Optional.empty();
    }
  }

  /**
   * The answer {@code line} holds: its JSON object, else the line itself as a JSON string. A line
   * that is not an object is the subject's answer, wrong as it is; were it taken for no answer, a
   * subject writing nothing but garbage would have every case skipped (and exit 2, "none failed")
   * rather than failed, and be said to have stopped answering.
   */
  private static JsonNode object(String line) {
    try {
      JsonNode answer = JSON.readTree(line);
      if (answer != null && answer.isObject()) {
        return answer;
      }
    } catch (IOException notJson) {
      // Not JSON, or nested beyond the parser's limit: the line is the answer, as it stands.
    }
    return JSON.getNodeFactory().textNode(line);
  }

  private boolean timedOut;

  /**
   * Ends the subject, and what it started, at once: it is taken to be gone, and a subject that
   * hangs (or a child it left behind) would otherwise run on until the run ends, or after.
   */
  private Optional<JsonNode> timeOut() {
    gone = true;
    // A subject that exited while something it started held its output open said its own status:
    // that is reported, and only what it started is ended.
    timedOut = process.isAlive();
    end();
    return Optional.empty();
  }

  /**
   * Whether an answer ran out of time, after which the subject and what it started were ended; its
   * exit status is then not its own (see {@link #exitStatus}).
   */
  public boolean timedOut() {
    return timedOut;
  }

  /** Whether the subject stopped answering (exited or timed out). */
  public boolean gone() {
    return gone;
  }

  /**
   * Waits up to {@code wait} for the subject to exit, and returns its exit status; empty if it
   * still runs, or if it was ended here when an answer ran out of time ({@link #timedOut()}: the
   * status would be this side's signal, not anything the subject said). Once it has exited, {@link
   * #stderrTail} holds the end of everything it wrote there (a shell's "not found", a JVM's stack
   * trace), not only what had been read so far.
   */
  public OptionalInt exitStatus(Duration wait) {
    if (timedOut) {
      return OptionalInt.empty();
    }
    try {
      if (!process.waitFor(wait.toMillis(), TimeUnit.MILLISECONDS)) {
        return OptionalInt.empty();
      }
      // A child the subject started may hold its stderr open after it exits: wait, but not long.
      err.join(STDERR_WAIT.toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return process.isAlive() ? OptionalInt.empty() : OptionalInt.of(process.exitValue());
    }
    return OptionalInt.of(process.exitValue());
  }

  /**
   * The last {@value #STDERR_LINES} non-blank lines the subject wrote to standard error, for a
   * report: enough for a shell's "not found" or the end of a stack trace, not a screenful.
   */
  public List<String> stderrLines() {
    return lastLines(stderrTail());
  }

  /** The last {@value #STDERR_LINES} non-blank lines of {@code text}. */
  static List<String> lastLines(String text) {
    List<String> lines = text.lines().filter(l -> !l.isBlank()).toList();
    return lines.subList(Math.max(0, lines.size() - STDERR_LINES), lines.size());
  }

  /** Answer lines read and not yet asked for; for tests. */
  int queued() {
    return lines.size();
  }

  /** The last few kilobytes the subject wrote to standard error. */
  public String stderrTail() {
    synchronized (stderrTail) {
      return stderrTail.toString();
    }
  }

  private void pump(InputStream in) {
    try {
      try (InputStream r = new BufferedInputStream(in)) {
        ByteArrayOutputStream line = new ByteArrayOutputStream();
        for (int b = r.read(); b != -1; b = r.read()) {
          if (b == '\n') {
            queue(line);
            line.reset();
          } else if (line.size() == MAX_ANSWER_BYTES) {
            // Ends the subject, as an exit would; closing its output stops its writes.
            line.reset();
            break;
          } else {
            line.write(b);
          }
        }
        queue(line);
      } catch (IOException e) {
        // The subject went away; the EOF below tells ask().
      }
      // After every answer the subject wrote; waits, as they do, for room in the queue.
      lines.put(EOF);
    } catch (InterruptedException e) {
      // Closed (see close()): no one will ask again.
      Thread.currentThread().interrupt();
    }
  }

  /** Queues a non-blank line (a CRLF's CR dropped), waiting while the queue is full. */
  private void queue(ByteArrayOutputStream line) throws InterruptedException {
    String text = line.toString(StandardCharsets.UTF_8);
    if (text.endsWith("\r")) {
      text = text.substring(0, text.length() - 1);
    }
    if (!text.isBlank()) {
      lines.put(text);
    }
  }

  private void drain(InputStream err) {
    byte[] buf = new byte[4096];
    try (err) {
      for (int n = err.read(buf); n >= 0; n = err.read(buf)) {
        synchronized (stderrTail) {
          stderrTail.append(new String(buf, 0, n, StandardCharsets.UTF_8));
          if (stderrTail.length() > STDERR_TAIL) {
            stderrTail.delete(0, stderrTail.length() - STDERR_TAIL);
          }
        }
      }
    } catch (IOException e) {
      // Nothing more to keep.
    }
  }

  /** Closes the subject's input, waits briefly for it to exit, then ends it and its children. */
  @Override
  public void close() {
    // A reader waiting for room in a full queue stops and closes the subject's output, so a
    // subject still writing gets a broken pipe rather than blocking on output nobody reads.
    out.interrupt();
    // Before its input closes: a subject that then exits leaves what it started to init.
    noteStartedNow();
    if (writing.isDone()) {
      try {
        stdin.close();
      } catch (IOException e) {
        // Already gone.
      }
      try {
        process.waitFor(5, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    // Else the subject reads no more of its input, so closing that would wait on the write, which
    // waits on the subject: it is ended first, which fails the write, and its input is closed
    // after that, by the writer.
    end();
    writer.execute(
        () -> {
          try {
            stdin.close();
          } catch (IOException e) {
            // Already gone.
          }
        });
    writer.shutdown();
    try {
      Runtime.getRuntime().removeShutdownHook(reaper);
    } catch (IllegalStateException e) {
      // Shutting down: the hook ends the subject, as end() just did.
    }
  }

  /**
   * Ends the subject and whatever it started: a shell's command ({@code sh -c "CMD"}) is the
   * shell's child, and would outlive the shell, as would a subject's own background process ({@code
   * sh -c 'helper & exec subject'}). A process seen earlier and ended since is not ended again,
   * even if its number was given to another: a {@link ProcessHandle} names one process, by its
   * start time too.
   */
  private void end() {
    noteStartedNow();
    started.forEach(ProcessHandle::destroyForcibly);
    process.destroyForcibly();
  }

  /**
   * Adds what the subject has started by now to {@link #started}, while it runs; called around
   * every answer. Looking is costly ({@link Process#descendants} reads every process's entry in
   * {@code /proc}, some milliseconds of CPU, twice per case), so it is skipped when no process or
   * thread at all has been started on the machine since before the last look: then the subject has
   * started nothing new either. Where the count cannot be read, or did not grow when the subject
   * was started, it looks every time.
   */
  private void noteStarted() {
    long forks = forks();
    if (!forksCount || forks != forksSeen) {
      process.descendants().forEach(started::add);
      // Read before the look: a process started during it changes the count, and is looked for
      // next time.
      forksSeen = forks;
    }
  }

  /** {@link #noteStarted()} without the shortcut: once when closing, whatever the count says. */
  private void noteStartedNow() {
    long forks = forks();
    process.descendants().forEach(started::add);
    forksSeen = forks;
  }

  private static final Path PROC_STAT = Path.of("/proc/stat");

  /**
   * How many processes and threads have been started on this machine since it booted (Linux's
   * {@code processes} line in {@code /proc/stat}, which only grows); {@code -1} where it cannot be
   * read.
   */
  static long forks() {
    String stat;
    try {
      stat = new String(Files.readAllBytes(PROC_STAT), StandardCharsets.US_ASCII);
    } catch (IOException | UnsupportedOperationException | SecurityException e) {
      return -1;
    }
    int at = stat.indexOf("\nprocesses ");
    if (at < 0) {
      return -1;
    }
    int from = at + "\nprocesses ".length();
    int to = from;
    while (to < stat.length() && to - from < 18 && Character.isDigit(stat.charAt(to))) {
      to++;
    }
    return to == from ? -1 : Long.parseLong(stat, from, to, 10);
  }

  /** The subject's process, for tests. */
  ProcessHandle handle() {
    return process.toHandle();
  }
}
