package org.meshjava.cli;

import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import org.meshjava.core.CostProfile;
import org.meshjava.core.Fidelity;
import org.meshjava.core.Recipe;
import org.meshjava.core.ServeConcurrency;
import org.meshjava.core.ServingEngine;
import org.meshjava.core.crypto.SigningKey;
import org.meshjava.core.internal.FirstFailureWins;
import org.meshjava.energy.DiscoveryOptions;
import org.meshjava.energy.EstimatorMeter;
import org.meshjava.engine.ReferenceEngine;
import org.meshjava.engine.onnx.OnnxDecisionEngine;
import org.meshjava.engine.onnx.OnnxEngineException;
import org.meshjava.journal.CreatedJournal;
import org.meshjava.journal.FileJournal;
import org.meshjava.journal.FileSnapshotStore;
import org.meshjava.journal.Journal;
import org.meshjava.journal.JournalException;
import org.meshjava.journal.SnapshotException;
import org.meshjava.journal.SnapshotFolderClaim;
import org.meshjava.journal.SnapshotStore;
import org.meshjava.journal.postgres.PostgresSnapshotStore;
import org.meshjava.metrics.ServeTimers;
import org.meshjava.metrics.StewardMetrics;
import org.meshjava.openai.OpenAiServer;
import org.meshjava.openai.RequestScope;
import org.meshjava.openai.UpstreamEngine;
import org.meshjava.receipt.ChainHead;
import org.meshjava.steward.ChainHeadConflictException;
import org.meshjava.steward.Steward;
import org.meshjava.steward.StewardStartException;
import org.meshjava.steward.UnknownChainHeadException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code mesh serve}: the OpenAI-compatible binding in front of a steward, configured from a file
 * ({@link ServeConfig}) and flags (which win). Runs until interrupted.
 */
@Command(
    name = "serve",
    description = "Serve the OpenAI-compatible HTTP binding (config file and/or flags).")
final class ServeCommand extends MeshCommand implements Callable<Integer> {
  @Option(
      names = "--config",
      paramLabel = "FILE",
      description =
          "A JSON configuration: README.md's \"A 5-minute tour\" shows one, SPEC.md's"
              + " \"mesh serve configuration\" lists every key.")
  Path config;

  @Option(names = "--host", paramLabel = "ADDR", description = "Bind address (default 127.0.0.1).")
  String host;

  @Option(
      names = "--port",
      paramLabel = "N",
      converter = PortNumber.class,
      description = "Port, 0 to 65535 (default 8080; 0 picks a free one).")
  Integer port;

  @Option(
      names = "--key",
      paramLabel = "FILE",
      description =
          "The steward's key file (mesh key generate; default: an identity for this run only).")
  Path key;

  @Option(
      names = "--journal",
      paramLabel = "FILE|URL",
      description =
          "The decision journal: a file, or a PostgreSQL database (postgresql://user@host/db),"
              + " where it is named by the steward's identity (default: in memory; grant spend"
              + " is forgotten at stop).")
  String journal;

  @Option(
      names = "--fresh-chain",
      description =
          "Start this key's receipt chain at 0: needed when the key's journal records no"
              + " receipt (a new key, or an abandoned chain). Never read from --config.")
  boolean freshChain;

  @Option(names = "--meter", paramLabel = "KIND", description = "discover (default) or estimator.")
  String meter;

  @Option(
      names = "--rapl-root",
      paramLabel = "DIR",
      description =
          "The powercap folder holding the intel-rapl:* energy counters (default"
              + " /sys/class/powercap; in a container, where the host's is mounted). Checked at"
              + " start: a folder that is missing or holds no intel-rapl zone stops it. Only with"
              + " --meter discover.")
  Path raplRoot;

  @Option(
      names = "--default-ceiling-uj",
      paramLabel = "UJ",
      description = "Joule ceiling for ungranted requests naming none (default 1000000).")
  Long defaultCeiling;

  @Option(names = "--max-body-bytes", paramLabel = "N", description = "Body limit (default 1 MiB).")
  Long maxBody;

  @Option(
      names = "--max-concurrent",
      paramLabel = "N",
      description =
          "Serves at once on the whole server before 429 overloaded (default: the sum of the"
              + " backends' own limits, at most 1024).")
  Integer maxConcurrent;

  @Option(
      names = "--write-timeout-s",
      paramLabel = "S",
      description =
          "Close a stream whose client has read nothing for this long, giving its backend slot"
              + " back (default 10).")
  Long writeTimeoutSeconds;

  @Option(
      names = "--revocations",
      paramLabel = "FILE",
      description =
          "Revocations to load at start (mesh grant revoke; one hex line each); each is"
              + " verified and journalled before anything is served, and said on stdout after"
              + " the steward and backend lines, before \"listening on\".")
  Path revocations;

  @Option(
      names = "--grace-seconds",
      paramLabel = "S",
      description =
          "On SIGTERM or SIGINT, how long serves in flight may take to finish while new requests"
              + " are refused with 503 shutting_down (default 30).")
  Long graceSeconds;

  @Option(
      names = "--no-metrics",
      description =
          "Serve no GET /metrics (Prometheus text format; on by default) and bind no metrics or"
              + " observations to the steward.")
  boolean noMetrics;

  @Option(
      names = "--metrics-grant-ids",
      description =
          "Tag grant spend and remaining budget with each grant's id (one series per grant);"
              + " by default they are summed over all grants.")
  boolean metricsGrantIds;

  @Option(
      names = "--port-file",
      paramLabel = "FILE",
      description =
          "Write the bound port here once listening (for scripts): written whole, replacing an"
              + " earlier file, in a folder that must exist. A start that fails leaves the file as it was (it may be another"
              + " running steward's), so delete it before starting and wait for it, or for the"
              + " process to exit.")
  Path portFile;

  @Option(
      names = "--console",
      description =
          "Serve the read-only operator console (/console and the JSON it reads) on a listener of"
              + " its own; off unless given. See --console-host and --console-port.")
  boolean console;

  @Option(
      names = "--console-host",
      paramLabel = "ADDR",
      description =
          "The console's bind address (default 127.0.0.1, loopback only; needs --console).")
  String consoleHost;

  @Option(
      names = "--console-port",
      paramLabel = "N",
      converter = PortNumber.class,
      description =
          "The console's port, 0 to 65535 (default 8081; 0 picks a free one; needs --console).")
  Integer consolePort;

  /** The console's port when {@code --console-port} is not given. */
  static final int DEFAULT_CONSOLE_PORT = 8081;

  /**
   * The journal file this run created, removed again (under its lock) if the steward never starts
   * listening.
   */
  private @Nullable CreatedJournal createdJournal;

  /**
   * The journal this run opened, until a steward holds it (the steward's close closes it then):
   * closed by a start that fails before, whatever failed, so that its lock goes with the start.
   */
  private @Nullable Journal unheldJournal;

  /**
   * Run, where a test binds it, as the steward is built (its journal and snapshot folder open): a
   * test's stand-in for an {@link Error} of the steward's start, which nothing a test can write
   * throws at will (an {@link OutOfMemoryError} while the journal is replayed, a meter probe's
   * thread the system would not start).
   */
  static final ScopedValue<Runnable> STEWARD_STARTING = ScopedValue.newInstance();

  /**
   * Run, where a test binds it, with the name of each step of {@link #call}'s cleanup before the
   * step runs: a test's stand-in for an {@link Error} while cleaning up (out of memory again).
   */
  static final ScopedValue<java.util.function.Consumer<String>> CLEANING_UP =
      ScopedValue.newInstance();

  /**
   * Loads, where a test binds it, in place of the MiniLM decision engine {@code mesh serve} adds to
   * its backends: a counter of loads that stands in for one (the model is never read), or a load
   * that fails as a missing or unreadable model does.
   */
  static final ScopedValue<OnnxLoad<ServingEngine>> LOADING_MINILM = ScopedValue.newInstance();

  /**
   * Run, where a test binds it, with the server {@code mesh serve} built, before it starts: how a
   * test stops a start where it would listen, or reads what the server was given ({@link
   * OpenAiServer#timeLimits()}, {@link OpenAiServer#sizeLimits()}); what it throws fails the start.
   */
  static final ScopedValue<ServerBuilt> SERVER_BUILT = ScopedValue.newInstance();

  /** What {@link #SERVER_BUILT} runs. */
  @FunctionalInterface
  interface ServerBuilt {
    /** Reads {@code server}, built and not started; a throw fails the start. */
    void accept(OpenAiServer server) throws CliException;
  }

  /** A load of an ONNX engine, which fails with the engine's own exception. */
  @FunctionalInterface
  interface OnnxLoad<E> {
    /** Loads the engine. */
    E load() throws OnnxEngineException;
  }

  /**
   * The addresses this run bound (the API's, the console's), before the model loads, so that a
   * start refused a port in use is refused before that wait; closed by the server that takes them
   * over, and by the cleanup of a start that fails first (a no-op once closed).
   */
  private OpenAiServer.@Nullable Bound apiListener;

  private OpenAiServer.@Nullable Bound consoleListenerBound;

  /**
   * Whether the server, once closed, had no request in flight and the steward no engine call still
   * running past the engine deadline: no serve can then be running in a local engine, which the
   * cleanup may close.
   */
  private boolean nothingInFlightAtStop;

  /**
   * This run's hold on its snapshot folder, let go once the steward is closed: another steward on
   * another journal configured with the same folder is refused at start.
   */
  private @Nullable SnapshotFolderClaim snapshotClaim;

  /**
   * The engines this run built (from its configuration, and the MiniLM decision engine it adds),
   * closed once the steward is closed or the start failed: the steward never closes an engine it is
   * given ({@link Steward.Builder#backend}). Which of them are closed is {@link #closedAtTheEnd}'s.
   */
  private List<ServingEngine> engines = List.of();

  /**
   * Whether the server started, so a serve may have run: from then on a serve the drain cut may
   * still be running in a local engine when the cleanup comes.
   */
  private boolean started;

  /** Counted down once the steward is closed, so that a signal's shutdown hook can end the JVM. */
  private final CountDownLatch finished = new CountDownLatch(1);

  /** The status a signalled shutdown exits with: 0 once drained and closed, 1 if cut short. */
  private volatile int exitStatus = 1;

  @Override
  public Integer call() throws Exception {
    Integer status = null;
    Throwable failed = null;
    try {
      status = serve();
    } catch (Exception | Error e) {
      failed = e;
    }
    // Each step runs whatever the one before it threw (out of memory again, as a cleanup after
    // running out of memory may well be): the first failure is the one reported, later ones are
    // suppressed onto it, and the latch is always counted down, so a signal's shutdown hook does
    // not wait out its minute for a close that already happened.
    Throwable first = failed;
    // The addresses first: a start refused after its bind (the model failed to load, the steward
    // refused its journal) frees its port; a no-op where the server closed them.
    first = cleanUp(first, "listener", apiListener);
    first = cleanUp(first, "console listener", consoleListenerBound);
    if (failed != null) {
      // A failed start (a port in use, say) leaves no new journal behind to confuse the next. The
      // steward's close removed it, under its lock; closing it here covers a start that failed
      // before a steward took it over (a no-op once closed). An Error too (out of memory while the
      // steward starts): the JVM may go on (an embedder's, a test's), holding the lock.
      first = cleanUp(first, "journal", unheldJournal);
      first = cleanUp(first, "created journal", createdJournal);
    }
    // After the steward's close, which saved its last snapshot, and after a failed start removed
    // the folder made for it.
    first = cleanUp(first, "snapshot folder claim", snapshotClaim);
    // After the steward's close, which ends every serve through them; each whatever the one before
    // threw.
    for (AutoCloseable engine : closedAtTheEnd()) {
      first = cleanUp(first, "engine", engine);
    }
    first = cleanUp(first, "finished", finished::countDown);
    if (first instanceof Error error) {
      throw error;
    }
    if (first != null) {
      throw (Exception) first;
    }
    return java.util.Objects.requireNonNull(status, "status");
  }

  /**
   * The engines this run closes as it ends: every one that holds resources ({@link
   * ServeConfig#holdingResources}) where the server never started, since no serve ran in any, and
   * where it stopped with no request in flight (the drain ended them all, or none was running when
   * an embedder's interrupt stopped it) and no engine call running past the engine deadline (its
   * request answered, its engine still at work), since none can run in any then. Otherwise, the
   * upstream engines only (each holds a share of an HTTP client, one of its own with its threads
   * where it trusts its own CAs, and a serve cut in one meets a failed exchange): the local engines
   * are left to the process's end, as their close frees native memory (an ONNX session) that a
   * serve cut at the drain's end may still be running in.
   */
  private List<AutoCloseable> closedAtTheEnd() {
    return started && !nothingInFlightAtStop
        ? engines.stream()
            .filter(UpstreamEngine.class::isInstance)
            .map(AutoCloseable.class::cast)
            .toList()
        : ServeConfig.holdingResources(engines);
  }

  /**
   * Closes {@code step} (nothing if null) and returns what to report: {@code first}, with what the
   * close threw suppressed onto it, or what the close threw where nothing failed before.
   */
  private static @Nullable Throwable cleanUp(
      @Nullable Throwable first, String name, @Nullable AutoCloseable step) {
    if (step == null) {
      return first;
    }
    try {
      if (CLEANING_UP.isBound()) {
        CLEANING_UP.get().accept(name);
      }
      step.close();
      return first;
    } catch (Exception | Error e) {
      return FirstFailureWins.keep(first, e);
    }
  }

  /** Where the operator console listens: its flags, else 127.0.0.1 and its default port. */
  private Listener consoleListener() {
    return new Listener(
        consoleHost != null ? consoleHost : "127.0.0.1",
        consolePort != null ? consolePort : DEFAULT_CONSOLE_PORT);
  }

  /**
   * Refuses a console on the API's port before anything starts (the backends' models, the journal):
   * the console's default is the API's port plus one only when the API keeps 8080, so with {@code
   * --port 8081} both want 8081, and the bind failure would blame "another process". The hosts are
   * compared as addresses: 0.0.0.0 takes 127.0.0.1's port, localhost is 127.0.0.1.
   */
  private void checkConsoleListener(ServeConfig c) throws CliException {
    Listener api =
        new Listener(
            flagOr(host, c.host()).orElse("127.0.0.1"), flagOr(port, c.port()).orElse(8080));
    Listener on = consoleListener();
    if (on.clashesWith(api)) {
      String which = consolePort != null ? "--console-port " : "the console's default port ";
      throw new CliException(
          which
              + on.port()
              + " is the API's port too; give the console another with"
              + " --console-port (0 picks a free one)");
    }
  }

  /**
   * Refuses a {@code --port-file} that could not be written once listening, before anything starts:
   * otherwise the server said it was listening and then stopped. Its folder must exist, and take a
   * file (tried, not read from its permissions, which root passes), and is never made: a mistyped
   * path would be created where no script waits for the file, as a journal is not started in a
   * folder made on the spot.
   */
  static void checkPortFile(Path file) throws CliException {
    Path absolute = file.toAbsolutePath();
    if (Files.isDirectory(absolute)) {
      throw new CliException("--port-file " + file + " is a folder; name a file in it");
    }
    Path folder = absolute.getParent();
    if (folder != null && !Files.isDirectory(folder)) {
      throw new CliException(
          "--port-file "
              + file
              + ": "
              + (Files.exists(folder)
                  ? folder + " is a file, not a folder"
                  : "no folder " + folder + " (it is not made; create it first)"));
    }
    try {
      UserFile.checkCanWrite(absolute);
    } catch (IOException e) {
      throw new CliException(
          "--port-file "
              + file
              + ": cannot write in "
              + (folder != null ? folder : absolute)
              + " ("
              + UserFile.reason(e)
              + "); name a file in a folder this user can write",
          e);
    }
  }

  /**
   * Where the steward keeps its snapshots: the configured directory, else beside the journal (a
   * directory beside a file, a table in the journal's database), so that a steward with no disk of
   * its own restarts from one too. A new journal notes the directory's claim, which removes the
   * directory with it if this start made it.
   */
  private SnapshotStore snapshotStore(
      JournalTarget target, ServeConfig.SnapshotConfig snaps, String steward) throws CliException {
    if (snaps.dir().isEmpty() && target instanceof JournalTarget.Postgres p) {
      return PostgresSnapshotStore.of(p.location(), steward);
    }
    FileSnapshotStore store =
        snaps
            .dir()
            .map(FileSnapshotStore::new)
            .orElseGet(() -> FileSnapshotStore.beside(((JournalTarget.File) target).path()));
    try {
      // At start, rather than when the steward first reads or saves one: a save fails only as a
      // warning at stop, so the operator would learn too late that no snapshot was ever kept.
      store.checkFolder();
    } catch (SnapshotException e) {
      throw new CliException(
          e.detail()
              + " (name one with \"snapshots\": {\"dir\": …}), or turn snapshots off with"
              + " \"snapshots\": false");
    }
    SnapshotFolderClaim claim;
    try {
      // Held while the steward runs: two stewards saving into one folder delete each other's
      // snapshots, and each then refuses to restart from the one it finds. Claimed for the journal
      // file, so that a folder holding another journal's snapshots is refused by name before its
      // lock is tried (SPEC.md §60.8).
      claim = target instanceof JournalTarget.File f ? store.claim(f.path()) : store.claim();
      snapshotClaim = claim;
    } catch (SnapshotException e) {
      throw new CliException("cannot start the steward: " + e.detail(), e);
    }
    // Noted only once claimed: a folder another steward holds is never this run's to remove, and
    // the claim removes only a folder it made.
    CreatedJournal created = createdJournal;
    if (created != null) {
      created.snapshots(claim);
    }
    return store;
  }

  /**
   * Discovery with RAPL under {@code root} where one is set, checked before anything starts: a
   * folder that is missing or holds no zone stops the start rather than leaving every figure {@code
   * Estimator} with one log line to say why, and so does a root beside the estimator, which
   * discovers nothing.
   */
  static Optional<DiscoveryOptions> raplDiscovery(String meterKind, Optional<Path> root)
      throws CliException {
    if (root.isEmpty()) {
      return Optional.empty();
    }
    if (meterKind.equals("estimator")) {
      throw new CliException(
          "--rapl-root (rapl_root) says where counters are discovered, and --meter (meter)"
              + " estimator discovers none; drop one of the two");
    }
    if (!meterKind.equals("discover")) {
      // Not checked here: where the meter is chosen refuses an unknown kind by name, which is
      // the mistake to report first (a root checked before it hid it until the next start).
      return Optional.empty();
    }
    try {
      return Optional.of(DiscoveryOptions.defaults().withCheckedRaplRoot(root.get()));
    } catch (IllegalArgumentException e) {
      throw new CliException("--rapl-root (rapl_root): " + e.getMessage(), e);
    }
  }

  private Integer serve() throws Exception {
    if (!console && (consoleHost != null || consolePort != null)) {
      throw new CliException(
          "--console-host and --console-port configure the operator console; add --console to"
              + " enable it");
    }
    if (portFile != null) {
      checkPortFile(portFile);
    }
    PrintWriter out = out();
    // Warnings go with errors to stderr, so that stdout holds only what scripts read.
    PrintWriter err = err();
    ServeConfig c = config != null ? ServeConfig.read(config) : ServeConfig.empty();
    engines = c.backends();
    if (console) {
      checkConsoleListener(c);
    }
    // Checked before anything starts, and named as the operator wrote them (the server's builder
    // would refuse them later, under its own names, after the key and journal were opened).
    atLeast(
        "--default-ceiling-uj",
        "default_joule_ceiling_uj",
        0,
        flagOr(defaultCeiling, c.defaultJouleCeilingUj()));
    atLeast("--max-body-bytes", "max_body_bytes", 1, flagOr(maxBody, c.maxBodyBytes()));
    inRange("max_connections", Integer.MAX_VALUE, c.maxConnections());
    inRange("max_buffered_body_bytes", Long.MAX_VALUE, c.maxBufferedBodyBytes());
    atLeast(
        "--max-concurrent",
        "max_concurrent_serves",
        1,
        flagOr(maxConcurrent, c.maxConcurrentServes()).map(Integer::longValue));
    checkedWriteTimeout(c, writeTimeoutSeconds);
    Duration grace = Duration.ofSeconds(graceSeconds != null ? graceSeconds : 30);
    if (grace.isNegative() || grace.toSeconds() > ServeConfig.MAX_SECONDS) {
      throw new CliException(
          "--grace-seconds must be from 0 to " + ServeConfig.MAX_SECONDS + ", not " + graceSeconds);
    }
    String meterKind = flagOr(meter, c.meter()).orElse("discover");
    Optional<DiscoveryOptions> discovery = raplDiscovery(meterKind, flagOr(raplRoot, c.raplRoot()));
    Path keyPath = flagOr(key, c.keyFile()).orElse(null);
    Path revocationsFile = flagOr(revocations, c.revocations()).orElse(null);
    String revocationsText = revocationsFile == null ? null : RevocationFile.read(revocationsFile);
    Steward.Builder sb;
    if (keyPath != null) {
      SigningKey signingKey = KeyFile.read(keyPath, err);
      sb = Steward.builder(signingKey);
    } else {
      sb = Steward.ephemeral();
      err.println("warning: no key file; this steward's identity lasts until it stops");
    }
    // The server drains its requests for --grace-seconds before the steward closes; what is still
    // in flight then is cut, as the exit status says, so the close waits no longer.
    sb.closeGrace(Duration.ZERO);
    c.engineDeadlineSeconds().map(Duration::ofSeconds).ifPresent(sb::engineDeadline);
    if (freshChain) {
      sb.chainHead(ChainHead.GENESIS);
    }
    List<ServingEngine> backends =
        new java.util.ArrayList<>(c.backends().isEmpty() ? embeddedBackends() : c.backends());
    engines = List.copyOf(backends);
    switch (meterKind) {
      case "estimator" -> sb.meter(new EstimatorMeter());
      case "discover" -> discovery.ifPresent(sb::discovery);
      default -> throw new CliException("--meter " + meterKind + ": discover or estimator");
    }
    // Metrics and the timers of each serve, its phases and each request, bound through the
    // steward's listener hook; the registry writes the Prometheus text format itself. With
    // --no-metrics nothing is bound, so observing costs the steward nothing.
    PrometheusMeterRegistry prometheus = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    StewardMetrics metrics =
        StewardMetrics.builder(prometheus).grantIdTags(metricsGrantIds).build();
    // The timers StewardObservations would give through Micrometer's meter handler, recorded
    // directly: `mesh serve` registers no tracer, so observation contexts and scopes, and a timer
    // looked up by name and tags at each of a request's six stops, would buy nothing. Recorded
    // directly, a request's timers cost 0.4 us and 256 bytes against 2.4 us and 8 KB through
    // observations (mesh-bench/README, Session 26). No long-task timers: one tracks each serve
    // while it is open, in a sorted set every serve in flight shares, to show tasks that run for
    // minutes, and a serve's phases take milliseconds.
    ServeTimers serveTimers = new ServeTimers(prometheus);
    if (!noMetrics) {
      sb.listener(metrics).listener(serveTimers);
    }
    String journalText = flagOr(journal, c.journal()).orElse(null);
    JournalTarget target = journalText != null ? JournalTarget.parse(journalText) : null;
    if (target != null) {
      if (target instanceof JournalTarget.Postgres && keyPath == null) {
        throw new CliException(
            "--journal "
                + JournalTarget.describe(target)
                + ": a journal in a database is named by the steward's identity; pass --key");
      }
      boolean existed = target instanceof JournalTarget.File f && Files.exists(f.path());
      if (!existed && target instanceof JournalTarget.File f) {
        f.requireFolder(journal != null ? "--journal" : "journal");
      }
      Journal opened;
      try {
        Optional<Path> snapshotFolder =
            c.snapshots().enabled() ? c.snapshots().dir() : Optional.empty();
        // A snapshot folder kept elsewhere still proves a damaged one-line file a journal.
        opened =
            target instanceof JournalTarget.File f && snapshotFolder.isPresent()
                ? FileJournal.open(f.path(), snapshotFolder.get())
                : JournalTarget.open(target, sb.identity().toString());
      } catch (JournalException e) {
        if (e.reason() == JournalException.Reason.LOCKED && target instanceof JournalTarget.File) {
          // The journal can only say "another steward process"; a new user's usual one is the
          // tour's own steward, still running in another terminal.
          throw new CliException(
              e.getMessage()
                  + " (a running mesh serve, or a mesh journal import, archive or resume-grants);"
                  + " stop it first, or give this steward a journal of its own",
              e);
        }
        throw new CliException(String.valueOf(e.getMessage()), e);
      }
      // Ours only if it was not there and held no record when locked (another steward may have
      // made it in between; its file is not this run's to remove).
      CreatedJournal created =
          opened instanceof FileJournal fileJournal
              ? CreatedJournal.ifCreated(fileJournal, existed).orElse(null)
              : null;
      if (created != null) {
        createdJournal = created;
        opened = created;
      }
      unheldJournal = opened;
      long records = opened.position().count();
      if (keyPath == null && records > 0) {
        // Refused before any steward opens it, as the Spring starter does: a journal cut before its
        // first checkpoint (a crash) holds nothing a new identity's replay refuses, so the start
        // went on, and its closing checkpoint and snapshot then locked the key that wrote the
        // journal out of it.
        opened.close();
        throw new CliException(
            "journal "
                + JournalTarget.describe(target)
                + " already holds "
                + Counted.of(records, "record")
                + " of an earlier start, and this start has no --key, so its identity is"
                + " new and continues no journal: pass --key with the key that wrote it, or name a"
                + " new journal");
      }
      sb.journal(opened);
      ServeConfig.SnapshotConfig snaps = c.snapshots();
      if (snaps.enabled()) {
        sb.snapshots(snapshotStore(target, snaps, sb.identity().toString()))
            .snapshotEvery(snaps.everyRecords())
            .snapshotInterval(java.time.Duration.ofSeconds(snaps.everySeconds()));
      }
    } else if (keyPath != null) {
      err.println(
          "warning: no journal; this key outlives the steward but its spend would not, so"
              + " every grant is refused (503 journal_not_durable); pass --journal to honour grants");
    } else {
      err.println("warning: no journal; grant spend is forgotten when this steward stops");
    }
    // Every refusal that needs no model is met before it loads (seconds, more on a slow disk,
    // holding its native session meanwhile): the configuration, the journal's lock, the snapshot
    // folder's claim above, and the addresses here, bound now and accepting nothing until the
    // server starts, so a client that connects meanwhile waits to be answered rather than refused.
    bindListeners(c);
    // The MiniLM decision engine joins the embedded defaults; beside backends the configuration
    // lists it joins only when asked for ("default_decision_engine": true), so that what is
    // served is what the file says.
    if (c.defaultDecisionEngine()
        && backends.stream().noneMatch(b -> b instanceof OnnxDecisionEngine)) {
      backends.add(LOADING_MINILM.isBound() ? loaded(LOADING_MINILM.get()) : miniLm());
      engines = List.copyOf(backends);
    }
    backends.forEach(sb::backend);
    // Every backend gets the operator's caps, or the default output cap (SPEC.md §70).
    backends.forEach(b -> sb.cap(b.name(), c.capOf(b.name())));
    Steward steward;
    try {
      if (STEWARD_STARTING.isBound()) {
        STEWARD_STARTING.get().run();
      }
      steward = sb.build();
      unheldJournal = null;
    } catch (StewardStartException e) {
      // The steward's words say the journal (or its snapshot) is another identity's; this says
      // which flag gives a key. Without --key this start's identity is new and continues none.
      String key =
          !e.anotherIdentity()
              ? ""
              : keyPath == null
                  ? " (this start has no --key, so its identity is new and continues no journal:"
                      + " pass --key with the key that wrote it, or name a new journal)"
                  // Conditional: a snapshot replaced by another steward's is refused the same
                  // way under the right key.
                  : " (if --key "
                      + keyPath
                      + " is not the key that wrote the journal, pass --key with the one that"
                      + " did, or name a new journal)";
      throw new CliException(e.getMessage() + key, e);
    } catch (UnknownChainHeadException e) {
      throw new CliException(
          "cannot start the steward: journal "
              + (target != null ? JournalTarget.describe(target) : "(in memory)")
              + " records no receipt of key "
              + keyPath
              + ", so where its receipt chain stands is"
              + " unknown; if this key has never sealed a receipt, pass --fresh-chain",
          e);
    } catch (ChainHeadConflictException e) {
      // The steward's words name its builder's setting (chainHead); a user of mesh serve gave
      // --fresh-chain, usually by repeating the tour's first start.
      throw new CliException(
          "cannot start the steward: --fresh-chain starts this key's receipt chain at 0, but"
              + " journal "
              + (target != null ? JournalTarget.describe(target) : "(in memory)")
              + " already records its receipts up to "
              + e.lastRecorded()
              + ", and the chain continues from the last of them: drop --fresh-chain (it is"
              + " given only on a key's first start)",
          e);
    } catch (IllegalArgumentException e) {
      throw new CliException("cannot start the steward: " + e.getMessage(), e);
    }
    if (!noMetrics) {
      metrics.watch(steward);
    }
    try (steward) {
      OpenAiServer.Builder ob =
          OpenAiServer.builder(steward).listenOn(java.util.Objects.requireNonNull(apiListener));
      flagOr(defaultCeiling, c.defaultJouleCeilingUj()).ifPresent(ob::defaultJouleCeilingUj);
      flagOr(maxBody, c.maxBodyBytes()).ifPresent(ob::maxBodyBytes);
      flagOr(maxConcurrent, c.maxConcurrentServes()).ifPresent(ob::maxConcurrentServes);
      c.maxConnections().ifPresent(n -> ob.maxConnections(n.intValue()));
      c.maxBufferedBodyBytes().ifPresent(ob::maxBufferedBodyBytes);
      c.refusedBodyDrainBytes().ifPresent(ob::refusedBodyDrainBytes);
      timeLimits(ob, c, writeTimeoutSeconds);
      OpenAiServer.Bound consoleBound = consoleListenerBound;
      if (consoleBound != null) {
        ob.console(consoleBound);
      }
      if (!noMetrics) {
        ob.metrics(prometheus::scrape);
        ob.requestScope(
            (method, path, header) -> {
              ServeTimers.Request received = serveTimers.request(method);
              return new RequestScope.Opened() {
                @Override
                public void status(int status) {
                  received.status(status);
                }

                @Override
                public void close() {
                  received.close();
                }
              };
            });
      }
      OpenAiServer server = ob.build();
      try (server) {
        if (SERVER_BUILT.isBound()) {
          SERVER_BUILT.get().accept(server);
        }
        // Loaded before the server serves, so that no presentation they revoke is honoured, but
        // said after the steward's own lines: a script reading stdout finds "steward" first and
        // "listening on" last, once listening, whatever the file held. Journalled revocations
        // are said on a failed start too: a line refused leaves the lines before it journalled.
        StringWriter revoked = new StringWriter();
        if (revocationsFile != null && revocationsText != null) {
          try {
            RevocationFile.load(
                steward, revocationsFile, revocationsText, new PrintWriter(revoked, true));
          } catch (CliException e) {
            out.print(revoked);
            throw e;
          }
        }
        try {
          // Set first: a start that got as far as accepting a request before it failed may have
          // run a serve, and so may one that fails with an Error.
          started = true;
          server.start();
        } catch (IOException e) {
          // Its addresses are bound before the model loads (bindListeners), so a refusal here
          // is none of their binds; one still says so as before: Jetty opens every listener
          // before it starts any (OpenAiServer sets it so), and throws there, so nothing was
          // accepted, no serve ran, and the local engines are closed too.
          started = bindRefusal(e).isEmpty();
          out.print(revoked);
          throw new CliException(cannotListen(e, console), e);
        }
        out.println("steward " + steward.identity());
        steward.unresolved().forEach(u -> err.println("warning: " + u));
        steward
            .grantsSuspended()
            .ifPresent(r -> err.println("warning: grants are suspended: " + r));
        for (ServingEngine e : steward.backends()) {
          out.println(
              "backend "
                  + e.name()
                  + " ("
                  + e.fidelity()
                  + ", "
                  + e.costProfile().ujPerToken()
                  + " uJ/token"
                  + (e.deterministic() ? ", deterministic" : "")
                  + ")");
        }
        CreatedJournal created = createdJournal;
        if (created != null) {
          created.keep();
          // One line, so that a journal path that names no journal yet (a typo) is seen at the
          // first start, not after grants were spent again from zero. Said only once the new
          // journal is kept: a start that fails removes it.
          err.println("starting a new journal at " + created.path().toAbsolutePath());
        }
        out.print(revoked);
        server.consoleUri().ifPresent(u -> out.println("console on " + u + " (read-only)"));
        out.println("listening on " + server.baseUri() + " (Ctrl-C to stop)");
        out.flush();
        if (portFile != null) {
          // Only here, once listening. A start that fails never touches the file: nothing tells
          // an earlier start's stale file from a running steward's that shares the name (a
          // connect to its port misses a steward bound to another address), and removing that one
          // would hide a live steward from its scripts. So the script deletes it before starting.
          GrantFiles.writeLine(portFile, Integer.toString(server.port()));
        }
        CountDownLatch stop = new CountDownLatch(1);
        Thread hook = new Thread(() -> stopOnSignal(stop, grace), "mesh-serve-stop");
        Runtime.getRuntime().addShutdownHook(hook);
        boolean drained = true;
        try {
          stop.await();
          // Drain: new requests are refused with 503 shutting_down while those in flight finish,
          // are metered, sealed and journalled; closing the steward below then signs a last
          // checkpoint and releases the journal's lock.
          out.println(
              "draining: new requests refused, up to "
                  + grace.toSeconds()
                  + " s for "
                  + server.inFlight()
                  + " in flight");
          out.flush();
          drained = server.drain(grace);
          if (!drained) {
            err.println(
                "warning: the grace period ran out with "
                    + server.inFlight()
                    + " requests in flight; they are cut");
          }
        } catch (InterruptedException e) {
          // Interrupting the command's thread is how an embedder stops it; the interrupt is
          // consumed here so that stopping the server below can wait for it to finish.
        } finally {
          try {
            Runtime.getRuntime().removeShutdownHook(hook);
          } catch (IllegalStateException shuttingDown) {
            // The JVM is already stopping; the hook has run or will.
          }
        }
        exitStatus = drained ? 0 : 1;
        out.println("stopped");
        out.flush();
        return 0;
      } finally {
        // Read once it is closed, so that no request can arrive after: none in flight then, and
        // no engine call that overran the engine deadline still running (its request was answered
        // ENGINE_FAILED, but it runs on in its engine), no serve runs in a local engine, which the
        // cleanup may close.
        nothingInFlightAtStop = server.inFlight() == 0 && steward.enginesRunningPastDeadline() == 0;
      }
    }
  }

  /**
   * Binds the API's address, and the console's where it is on, before the model loads: a port in
   * use refuses the start without that wait. Each accepts nothing until the server starts.
   */
  private void bindListeners(ServeConfig c) throws CliException {
    try {
      apiListener =
          OpenAiServer.Bound.bind(
              flagOr(host, c.host()).orElse("127.0.0.1"), flagOr(port, c.port()).orElse(8080));
      if (console) {
        Listener on = consoleListener();
        consoleListenerBound = OpenAiServer.Bound.bind(on.host(), on.port());
      }
    } catch (IOException e) {
      throw new CliException(cannotListen(e, console), e);
    }
  }

  /** Refuses a configuration-only setting outside [1, {@code max}], naming its key. */
  private static void inRange(String key, long max, Optional<Long> value) throws CliException {
    if (value.isPresent() && (value.get() < 1 || value.get() > max)) {
      throw new CliException(
          "\"" + key + "\" in a configuration must be from 1 to " + max + ", not " + value.get());
    }
  }

  /** Refuses a setting below {@code min}, naming its flag and its configuration key. */
  private static void atLeast(String flag, String key, long min, Optional<Long> value)
      throws CliException {
    if (value.isPresent() && value.get() < min) {
      throw new CliException(
          flag
              + " (\""
              + key
              + "\" in a configuration) must be at least "
              + min
              + ", not "
              + value.get());
    }
  }

  /**
   * Gives the server the time limits {@code c} sets, and the write timeout {@code
   * --write-timeout-s} or {@code c} sets, with an idle timeout that outlasts it. Each is read back
   * from a built server by {@code ServeTimeLimitsTest}, so that a limit the file sets and the
   * server never gets fails a test.
   *
   * @throws CliException if the write timeout is not from 1 s to a year
   */
  static void timeLimits(OpenAiServer.Builder ob, ServeConfig c, @Nullable Long writeTimeoutFlag)
      throws CliException {
    c.bodyDeadlineSeconds().map(Duration::ofSeconds).ifPresent(ob::bodyDeadline);
    c.headerDeadlineSeconds().map(Duration::ofSeconds).ifPresent(ob::headerDeadline);
    c.refusedBodyDrainSeconds().map(Duration::ofSeconds).ifPresent(ob::refusedBodyDrainTime);
    c.deliveryTimeoutSeconds().map(Duration::ofSeconds).ifPresent(ob::deliveryTimeout);
    Long writeTimeout = checkedWriteTimeout(c, writeTimeoutFlag).orElse(null);
    if (writeTimeout != null) {
      // The connection's idle timeout must outlast the write timeout, or it would fire first.
      ob.writeTimeout(Duration.ofSeconds(writeTimeout))
          .idleTimeout(Duration.ofSeconds(Math.max(IDLE_TIMEOUT_S, writeTimeout + IDLE_MARGIN_S)));
    }
  }

  /**
   * The write timeout {@code --write-timeout-s} or {@code c} sets, if any; checked at the start's
   * beginning too, so that it is refused before anything is opened or loaded.
   *
   * @throws CliException if it is not from 1 s to a year
   */
  private static Optional<Long> checkedWriteTimeout(ServeConfig c, @Nullable Long flag)
      throws CliException {
    Optional<Long> writeTimeout = flagOr(flag, c.writeTimeoutSeconds());
    if (writeTimeout.isPresent()
        && (writeTimeout.get() < 1 || writeTimeout.get() > ServeConfig.MAX_SECONDS)) {
      throw new CliException(
          "--write-timeout-s must be from 1 to "
              + ServeConfig.MAX_SECONDS
              + " (a year), not "
              + writeTimeout.get());
    }
    return writeTimeout;
  }

  /** What a flag says, else what the configuration file says: flags win over the file. */
  private static <T> Optional<T> flagOr(@Nullable T flag, Optional<T> configured) {
    return flag != null ? Optional.of(flag) : configured;
  }

  /**
   * The shutdown hook of a signal (SIGTERM, SIGINT): wakes the serving thread to drain, waits for
   * it to close the steward, and ends the JVM with the drain's status. Without the halt the JVM
   * would exit with the signal's status (143) however cleanly it drained, and with no wait it would
   * halt before the steward's last checkpoint and the journal's lock release.
   */
  private void stopOnSignal(CountDownLatch stop, Duration grace) {
    stop.countDown();
    try {
      if (!finished.await(grace.toSeconds() + 60, TimeUnit.SECONDS)) {
        return;
      }
    } catch (InterruptedException e) {
      return;
    }
    out().flush();
    err().flush();
    Runtime.getRuntime().halt(exitStatus);
  }

  /**
   * The cost the MiniLM decision engine is registered at, and what a configured {@code onnx-minilm}
   * entry takes for each cost it does not name: cheap per token (a 22M-parameter encoder), dear per
   * scored option (each option is a forward pass).
   */
  static final CostProfile MINILM_COST = CostProfile.perToken(20).withOptionCost(300);

  /**
   * The MiniLM decision engine with the profile the demo and {@code mesh serve} register it under:
   * F2 for typed decisions, cheap per token (a 22M-parameter encoder) and dear per scored option
   * (each option is a forward pass).
   */
  static OnnxDecisionEngine miniLm() throws CliException {
    return loaded(
        () ->
            OnnxDecisionEngine.builder()
                .name("minilm")
                .fidelity(Fidelity.F2)
                .costProfile(MINILM_COST)
                .concurrency(LOCAL)
                .build());
  }

  /** What {@code load} loads, or why it failed in one line. */
  private static <E> E loaded(OnnxLoad<E> load) throws CliException {
    try {
      return load.load();
    } catch (OnnxEngineException e) {
      throw new CliException("cannot load the MiniLM decision engine: " + e.getMessage(), e);
    }
  }

  /** The connection idle timeout {@code mesh serve} keeps unless the write timeout needs more. */
  private static final long IDLE_TIMEOUT_S = 30;

  /** How much longer than the write timeout the idle timeout is kept. */
  private static final long IDLE_MARGIN_S = 5;

  /**
   * How many serves an engine computing on this host admits beyond one per core, unless its entry
   * says {@code "max_waiting_serves"}. Eight clients at once is ordinary load, and with none
   * admitted the third of them is refused 429 on a two-core host; a short burst costs only its
   * share of the cores. The bound keeps a flood (or a crowd of streams that read nothing) from
   * holding every thread of the server, as an upstream's 64 does (SPEC 70).
   */
  static final int LOCAL_WAITING_SERVES = 64;

  /** The embedded engines' bounds: one serve per core, {@link #LOCAL_WAITING_SERVES} more. */
  private static final ServeConcurrency LOCAL =
      ServeConcurrency.cpuDefault().withMaxWaitingServes(LOCAL_WAITING_SERVES);

  /** The backends {@code mesh serve} runs when its configuration names none (MiniLM aside). */
  static List<ServingEngine> embeddedBackends() {
    return referenceBackends(LOCAL);
  }

  /**
   * The embedded backends when the configuration names none, and the demo's: three weights-free
   * reference engines at different fidelities and costs (tiny F1, reference F2, frontier F4), each
   * bounded by {@code concurrency}.
   */
  static List<ServingEngine> referenceBackends(ServeConcurrency concurrency) {
    return List.of(
        ReferenceEngine.builder()
            .name("tiny")
            .recipe(Recipe.of("tiny-ref"))
            .fidelity(Fidelity.F1)
            .costProfile(CostProfile.perToken(40).withOptionCost(10))
            .workPerToken(4)
            .concurrency(concurrency)
            .build(),
        ReferenceEngine.builder().name("reference").concurrency(concurrency).build(),
        ReferenceEngine.builder()
            .name("frontier")
            .recipe(Recipe.of("frontier-ref").with("instruct"))
            .fidelity(Fidelity.F4)
            .costProfile(CostProfile.perToken(900).withOptionCost(200))
            .workPerToken(64)
            .reportsDelivered(true)
            .concurrency(concurrency)
            .build());
  }

  /**
   * Says why the server could not listen and, for a port another process holds (the commonest case:
   * a steward from an earlier step still running), what to do. Jetty's own words name the address
   * as {@code /127.0.0.1:8080} and leave the reason to the cause.
   */
  private static String cannotListen(IOException e, boolean console) {
    String what = String.valueOf(e.getMessage());
    String prefix = "Failed to bind to /";
    String line =
        what.startsWith(prefix)
            ? "cannot listen on " + what.substring(prefix.length())
            : "cannot listen: " + what;
    Optional<java.net.BindException> bind = bindRefusal(e);
    if (bind.isPresent()) {
      String reason = String.valueOf(bind.get().getMessage());
      line += ": " + reason;
      if (reason.contains("in use")) {
        line +=
            "; another process listens there: stop it, or choose another "
                + (console ? "--port or --console-port" : "--port")
                + " (0 picks a free one)";
      }
    }
    return line;
  }

  /** What refused a listener its address, where that is why the server's start failed. */
  private static Optional<java.net.BindException> bindRefusal(IOException e) {
    for (Throwable t = e.getCause(); t != null; t = t.getCause()) {
      if (t instanceof java.net.BindException bind) {
        return Optional.of(bind);
      }
    }
    return Optional.empty();
  }
}
