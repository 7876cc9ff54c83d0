import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.net.http.HttpClient;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;
import org.meshjava.core.crypto.SigningKey;
import org.meshjava.core.identity.DidKey;
import org.meshjava.jcp.GrantChain;
import org.meshjava.jcp.Jcp;
import org.meshjava.jcp.Revocation;
import org.meshjava.openai.GrantedServeRequest;

/**
 * SIGKILL crash loops against {@code mesh serve} on a file journal with snapshots (see
 * ../README.md, "Crash loops"). Each cycle starts the server, fires a mixed concurrent load, kills
 * it with SIGKILL at a moment picked by the cycle's phase, then checks the journal with the tools
 * while stopped and the server's answers after the restart. Any broken expectation is printed as a
 * line starting with FAIL and counted; the run goes on.
 *
 * <p>Usage (run.sh beside it does this): java -cp CLASSES:mesh-cli/target/lib/* CrashDriver REPO
 * DIR PORT CYCLES. With CRASH_SHIFT_LIB (clockshift.c built) and CRASH_SHIFTS (seconds, comma
 * separated), each start of the server reads its wall clock moved by one of those shifts.
 */
public final class CrashDriver {
  static final ObjectMapper JSON = new ObjectMapper();
  static final Map<String, AtomicLong> COUNTS = new ConcurrentHashMap<>();
  static final AtomicLong FAILS = new AtomicLong();
  static Path repo;
  static Path dir;
  static int port;
  static HttpClient http;
  static final SigningKey CALLER = Jcp.newKey();
  static DidKey steward;
  static volatile GrantChain longGrant;
  static volatile GrantChain shortGrant;
  static volatile GrantChain smallGrant;

  /** A granted request body answered 200, and when its chain expires. */
  record Spent(String path, String body, Instant expiry, int cycle) {}

  /** A receipt a client was handed. */
  record Seen(long sequence, JsonNode receipt, String envelopeHex, String envelopeId, int cycle) {}

  static final List<Spent> SPENT = Collections.synchronizedList(new ArrayList<>());
  static final Map<Long, Seen> RECEIPTS = new ConcurrentHashMap<>();
  static volatile int cycle;

  /** The PostgreSQL server holding the journal (CRASH_PG_BIN set), or null for a file journal. */
  static CrashPostgres pg;

  /** The journal {@code mesh serve} and the tools are given: a file, or a postgresql:// URL. */
  static String journal;

  /**
   * The journal's lease in a PostgreSQL run: short, so a frozen database fails a write (the
   * driver's socketTimeout defaults to the lease) within the cycle.
   */
  static final long LEASE_MS = 4000;

  /** Prefixed to the answer counts while the database is down or has been (PostgreSQL runs). */
  static volatile String answerTag = "";

  /** When the load threads stop; a database fault moves it on. */
  static volatile long loadEnd;

  public static void main(String[] args) throws Exception {
    repo = Path.of(args[0]).toAbsolutePath();
    dir = Path.of(args[1]).toAbsolutePath();
    port = Integer.parseInt(args[2]);
    int cycles = Integer.parseInt(args[3]);
    Files.createDirectories(dir);
    http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(3)).build();
    // The request bodies, and how they are sent, are the soak client's (compiled beside this).
    SoakClient.port = port;
    SoakClient.http = http;
    Path key = dir.resolve("steward.key");
    if (!Files.exists(key)) {
      cli(60, "key", "generate", "--out", key.toString());
    }
    Files.writeString(
        dir.resolve("mesh.json"), "{\"snapshots\": {\"every_records\": 40, \"every_s\": 1}}\n");
    String pgBin = System.getenv("CRASH_PG_BIN");
    if (pgBin != null) {
      // The server listens on the port after the driver's; a rerun on the same folder keeps it.
      pg = new CrashPostgres(Path.of(pgBin), dir, port + 1);
      pg.init();
      journal = pg.url(LEASE_MS);
    } else {
      journal = dir.resolve("steward.journal").toString();
    }
    boolean first = pg != null || !Files.exists(dir.resolve("steward.journal"));
    Files.writeString(dir.resolve("revocations.hex"), "");
    Process p = start(first);
    if (p == null) {
      throw new IllegalStateException("first start failed: see " + dir.resolve("serve.log"));
    }
    JsonNode info = JSON.readTree(SoakClient.get("/v1/mesh/steward").body());
    steward = DidKey.parse(info.get("did").asText());
    // A revocation of a throwaway grant, loaded (and journalled) at every start.
    GrantChain throwaway = issue(Duration.ofHours(1), 1_000_000);
    Files.writeString(
        dir.resolve("revocations.hex"),
        Revocation.sign(CALLER, throwaway, Instant.now()).toHex() + "\n");
    longGrant = issue(Duration.ofHours(6), 500_000_000_000L);
    String[] phases =
        pg == null
            ? new String[] {
              "load", "load", "snapshot", "startup", "archive-kill", "archive", "idle"
            }
            // No snapshot file to catch, no archive of a database: faults of the database instead.
            : new String[] {
              "load",
              "startup",
              "idle",
              "pg-kill",
              "pg-freeze",
              "pg-restart",
              "pg-syncrep",
              "steward-freeze",
              "twin"
            };
    if (System.getenv("CRASH_PHASES") != null) {
      // Only these phases (comma separated), for a run aimed at one fault.
      phases = System.getenv("CRASH_PHASES").split(",");
    }
    // A run stopped by hand (SIGTERM, Ctrl-C) before its last cycle still prints its counts: a
    // long run cut short by the time its operator had would otherwise leave only the cycle lines.
    Thread stoppedEarly =
        new Thread(
            () ->
                System.out.println(
                    "END (stopped in cycle "
                        + cycle
                        + ") fails="
                        + FAILS
                        + " "
                        + new TreeMap<>(COUNTS)),
            "crash-end-line");
    Runtime.getRuntime().addShutdownHook(stoppedEarly);
    for (cycle = 1; cycle <= cycles; cycle++) {
      String phase = phases[ThreadLocalRandom.current().nextInt(phases.length)];
      shortGrant =
          issue(
              Duration.ofMillis(ThreadLocalRandom.current().nextLong(2000, 6000)), 50_000_000_000L);
      smallGrant =
          issue(Duration.ofSeconds(30), ThreadLocalRandom.current().nextLong(300_000, 3_000_000));
      String killedAt = runAndKill(p, phase);
      count("kill:" + killedAt);
      if (phase.equals("archive-kill") || phase.equals("archive")) {
        archive(phase.equals("archive-kill"));
      }
      boolean inflated =
          pg == null
              && ThreadLocalRandom.current().nextDouble() < TOO_LARGE
              && inflateLatestSnapshot();
      long t0 = System.nanoTime();
      checkStopped();
      long t1 = System.nanoTime();
      p = start(false);
      long t2 = System.nanoTime();
      if (p == null) {
        fail("restart refused the journal (cycle " + cycle + "), see serve.log");
        Files.copy(dir.resolve("serve.log"), dir.resolve("serve-refused-" + cycle + ".log"));
        p = start(false);
        if (p == null) {
          break;
        }
      }
      if (inflated) {
        if (Files.readString(dir.resolve("serve.log")).contains(TOO_LARGE_START)) {
          count("too-large:start-replayed-whole");
        } else {
          fail("a too-large latest snapshot was not read as one at start (cycle " + cycle + ")");
        }
      }
      checkRestarted();
      if (!RECEIPTS.isEmpty()) {
        fresh = false;
      }
      System.out.println(
          Instant.now()
              + " cycle "
              + cycle
              + " "
              + phase
              + "→"
              + killedAt
              + " fails="
              + FAILS
              + " spent="
              + SPENT.size()
              + " receipts="
              + RECEIPTS.size()
              + " tools="
              + (t1 - t0) / 1_000_000
              + "ms start="
              + (t2 - t1) / 1_000_000
              + "ms");
    }
    if (p != null) {
      p.destroyForcibly().waitFor();
    }
    if (pg != null) {
      pg.close();
    }
    Runtime.getRuntime().removeShutdownHook(stoppedEarly);
    System.out.println("END fails=" + FAILS + " " + new TreeMap<>(COUNTS));
    System.exit(FAILS.get() == 0 ? 0 : 1);
  }

  /** Runs load and kills the server as the phase says; returns what was running at the kill. */
  static String runAndKill(Process p, String phase) throws Exception {
    if (phase.equals("idle")) {
      Thread.sleep(ThreadLocalRandom.current().nextLong(50, 1500));
      kill(p);
      return "idle";
    }
    long loadMs = ThreadLocalRandom.current().nextLong(800, 4000);
    loadEnd = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(loadMs + 3000);
    List<Thread> threads = new ArrayList<>();
    for (int i = 0; i < 6; i++) {
      threads.add(
          Thread.ofPlatform()
              .start(
                  () -> {
                    while (System.nanoTime() < loadEnd && p.isAlive()) {
                      try {
                        one();
                      } catch (Exception e) {
                        count("client-error");
                      }
                    }
                  }));
    }
    String at = "load";
    if (phase.equals("snapshot")) {
      at = killDuringSnapshot(p, loadMs);
    } else if (phase.startsWith("pg-") || phase.equals("steward-freeze") || phase.equals("twin")) {
      Thread.sleep(loadMs / 2);
      at = phase.equals("twin") ? CrashFaults.twin(p) : CrashFaults.database(p, phase);
    } else {
      Thread.sleep(loadMs);
      if (phase.equals("startup")) {
        // Kill this one under load, then kill the next start while it replays.
        kill(p);
        for (Thread t : threads) {
          t.join();
        }
        Process again = launch();
        Thread.sleep(ThreadLocalRandom.current().nextLong(200, 4000));
        boolean up = Files.exists(dir.resolve("port"));
        kill(again);
        return up ? "startup-late" : "startup";
      }
    }
    kill(p);
    for (Thread t : threads) {
      t.join();
    }
    answerTag = "";
    return at;
  }

  static String killDuringSnapshot(Process p, long loadMs) throws Exception {
    Path snaps = dir.resolve("steward.journal.snapshots");
    long until = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(loadMs + 2000);
    while (System.nanoTime() < until) {
      if (Files.isDirectory(snaps)) {
        try (Stream<Path> s = Files.list(snaps)) {
          if (s.anyMatch(f -> f.getFileName().toString().endsWith(".tmp"))) {
            return "snapshot";
          }
        } catch (IOException e) {
          // listed while a file moved: look again
        }
      }
      Thread.onSpinWait();
    }
    return "snapshot-missed";
  }

  static void kill(Process p) throws InterruptedException {
    p.destroyForcibly();
    p.waitFor();
  }

  static boolean fresh = true;

  static Process launch() throws IOException {
    return launch(port, "port", "serve.log");
  }

  /** Starts {@code mesh serve} on {@code port}, writing {@code portFile} and {@code log} in DIR. */
  static Process launch(int port, String portFile, String log) throws IOException {
    Files.deleteIfExists(dir.resolve(portFile));
    List<String> cmd =
        new ArrayList<>(
            List.of(
                "nice",
                repo.resolve("mesh").toString(),
                "serve",
                "--key",
                dir.resolve("steward.key").toString(),
                "--journal",
                journal,
                "--config",
                dir.resolve("mesh.json").toString(),
                "--revocations",
                dir.resolve("revocations.hex").toString(),
                "--port",
                Integer.toString(port),
                "--port-file",
                dir.resolve(portFile).toString(),
                "--meter",
                "estimator"));
    if (fresh) {
      cmd.add("--fresh-chain");
    }
    ProcessBuilder pb = new ProcessBuilder(cmd);
    pb.environment().put("MESH_NO_BUILD", "1");
    String shifts = System.getenv("CRASH_SHIFTS");
    if (shifts != null && System.getenv("CRASH_SHIFT_LIB") != null) {
      String[] all = shifts.split(",");
      String shift = all[ThreadLocalRandom.current().nextInt(all.length)];
      pb.environment().put("LD_PRELOAD", System.getenv("CRASH_SHIFT_LIB"));
      pb.environment().put("SHIFT_S", shift);
      count("launch-shift:" + shift);
    }
    pb.redirectErrorStream(true);
    pb.redirectOutput(ProcessBuilder.Redirect.to(dir.resolve(log).toFile()));
    return pb.start();
  }

  /** Starts the server and waits for it to listen; null when it exits first. */
  static Process start(boolean first) throws Exception {
    Process p = launch();
    long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(180);
    while (System.nanoTime() < until) {
      if (Files.exists(dir.resolve("port")) && Files.size(dir.resolve("port")) > 0) {
        return p;
      }
      if (!p.isAlive()) {
        // A journal that records no receipt yet needs --fresh-chain; one that does refuses it.
        String log = Files.readString(dir.resolve("serve.log"));
        if (log.contains("pass --fresh-chain") && !fresh) {
          count("restart-needed-fresh-chain");
          fresh = true;
          return start(first);
        }
        if (log.contains("drop --fresh-chain") && fresh) {
          fresh = false;
          return start(first);
        }
        return null;
      }
      Thread.sleep(50);
    }
    kill(p);
    return null;
  }

  /**
   * {@code CRASH_TOO_LARGE=F} (0 to 1, default 0): in that share of the cycles, with the server
   * stopped, the latest snapshot file is made one byte larger than a snapshot can be ({@link
   * org.meshjava.journal.Snapshot#MAX_BYTES}) by writing a byte past its end, which leaves a hole
   * (no disk used) and the snapshot's header as it was. So {@code verify} and the restart take the
   * path of SPEC.md §60.8 "Size" (a latest file a version without the limit wrote): the header's
   * rollback checks, then a replay of the whole journal; an {@code archive} refuses it until a
   * newer snapshot is saved. The driver's own snapshots are kilobytes and never reach it.
   */
  static final double TOO_LARGE =
      Double.parseDouble(System.getenv().getOrDefault("CRASH_TOO_LARGE", "0"));

  /** What the server logs when it starts over a latest snapshot too large to read. */
  static final String TOO_LARGE_START = "replaying it whole, since the latest snapshot cannot be";

  /** The latest snapshot file, if any. */
  static java.util.Optional<Path> latestSnapshot() throws IOException {
    Path snaps = dir.resolve("steward.journal.snapshots");
    if (!Files.isDirectory(snaps)) {
      return java.util.Optional.empty();
    }
    try (var files = Files.list(snaps)) {
      return files
          .filter(f -> f.getFileName().toString().matches("[0-9]{20}\\.snapshot"))
          .max(java.util.Comparator.naturalOrder());
    }
  }

  /** Whether the latest snapshot is one this driver made too large (see {@link #TOO_LARGE}). */
  static boolean latestTooLarge() throws IOException {
    java.util.Optional<Path> latest = latestSnapshot();
    return latest.isPresent()
        && Files.size(latest.get()) > org.meshjava.journal.Snapshot.MAX_BYTES;
  }

  /** Makes the latest snapshot too large to read (see {@link #TOO_LARGE}); false if none. */
  static boolean inflateLatestSnapshot() throws IOException {
    java.util.Optional<Path> latest = latestSnapshot();
    if (latest.isEmpty()) {
      count("too-large:no-snapshot-yet");
      return false;
    }
    try (java.nio.channels.FileChannel ch =
        java.nio.channels.FileChannel.open(latest.get(), java.nio.file.StandardOpenOption.WRITE)) {
      ch.write(java.nio.ByteBuffer.wrap(new byte[] {0}), org.meshjava.journal.Snapshot.MAX_BYTES);
    }
    count("too-large:made");
    return true;
  }

  static void archive(boolean killIt) throws Exception {
    ProcessBuilder pb =
        new ProcessBuilder(
            repo.resolve("mesh").toString(),
            "journal",
            "archive",
            "--key",
            dir.resolve("steward.key").toString(),
            dir.resolve("steward.journal").toString());
    pb.environment().put("MESH_NO_BUILD", "1");
    pb.redirectErrorStream(true);
    pb.redirectOutput(ProcessBuilder.Redirect.to(dir.resolve("archive.log").toFile()));
    Process a = pb.start();
    if (killIt) {
      a.waitFor(ThreadLocalRandom.current().nextLong(300, 2500), TimeUnit.MILLISECONDS);
      boolean alive = a.isAlive();
      kill(a);
      count(alive ? "kill:archive" : "archive-finished-before-kill");
    } else {
      a.waitFor();
      String out = Files.readString(dir.resolve("archive.log"));
      if (a.exitValue() != 0 && latestTooLarge() && out.contains("a snapshot can be")) {
        // Refused, moving nothing, over a latest snapshot too large to read (SPEC.md §60.8).
        count("too-large:archive-refused");
      } else if (a.exitValue() != 0
          && !out.contains("nothing")
          // Killed before its first snapshot: the journal has nothing an archive may move.
          && !out.contains("no snapshot;")) {
        fail("archive exit " + a.exitValue() + ": " + out.strip());
      }
      count("archive:" + a.exitValue());
    }
  }

  /** With the server stopped: verify passes, no grant is overspent. */
  static void checkStopped() throws Exception {
    String key = dir.resolve("steward.key").toString();
    var inspect =
        java.util.concurrent.CompletableFuture.supplyAsync(
            () -> {
              try {
                return cli(300, "journal", "inspect", "--key", key, journal);
              } catch (Exception e) {
                return new Result(-1, e.toString());
              }
            });
    Result v = cli(300, "journal", "verify", "--key", key, journal);
    if ((v.rc == 0 && v.out.contains("holds no records yet"))
        || (v.rc != 0 && v.out.contains("holds no journal for"))) {
      // Killed before its first record: verify reports a file journal as new (exit 0) and refuses
      // a database holding no rows under the steward's name (a likely typo of the name).
      count("stopped-empty-journal");
      return;
    }
    if (v.rc == 0 && v.out.contains("checked by its header only")) {
      count("too-large:verify-header-only");
    }
    if (v.rc != 0) {
      fail("journal verify rc=" + v.rc + " (cycle " + cycle + "): " + tail(v.out));
      Files.writeString(dir.resolve("verify-fail-" + cycle + ".txt"), v.out);
    }
    Result i = inspect.join();
    if (i.rc != 0) {
      fail("journal inspect rc=" + i.rc + ": " + tail(i.out));
    } else if (i.out.contains("overspent")) {
      fail(
          "overspent grant (cycle "
              + cycle
              + "): "
              + i.out.lines().filter(l -> l.contains("overspent")).toList());
    }
    if (i.rc == 0) {
      checkSpendNeverFalls(i.out);
    }
  }

  /** What each grant had spent at the last stop, from {@code mesh journal inspect}. */
  static final Map<String, Long> SPEND = new ConcurrentHashMap<>();

  static final java.util.regex.Pattern GRANT_SPEND =
      java.util.regex.Pattern.compile("^ {2}grant ([0-9a-f]+): spent ([0-9]+) uJ");

  /** A grant's spend never falls from one stop to the next: a restart forgets no debit. */
  static void checkSpendNeverFalls(String inspect) {
    int grants = 0;
    for (String line : inspect.lines().toList()) {
      java.util.regex.Matcher m = GRANT_SPEND.matcher(line);
      if (!m.find()) {
        continue;
      }
      grants++;
      long now = Long.parseLong(m.group(2));
      Long before = SPEND.put(m.group(1), now);
      if (before != null && now < before) {
        fail(
            "grant "
                + m.group(1)
                + " spent "
                + now
                + " uJ at this stop, "
                + before
                + " at the last (cycle "
                + cycle
                + ")");
      }
    }
    count("spend-compared", grants);
  }

  /** After a restart: spent presentations stay spent, received receipts are held. */
  static void checkRestarted() throws Exception {
    List<Spent> spent;
    synchronized (SPENT) {
      spent = new ArrayList<>(SPENT);
    }
    int checked = 0;
    for (Spent s : spent) {
      boolean recent = s.cycle() >= cycle - 1;
      if (!recent && ThreadLocalRandom.current().nextInt(10) != 0) {
        continue;
      }
      // Read per request: the chain may expire while the rechecks run.
      Instant now = Instant.now();
      HttpResponse<String> r = SoakClient.post(s.path(), s.body(), "application/json");
      checked++;
      if (r.statusCode() == 200) {
        fail(
            "presentation served twice (200 after restart), cycle "
                + s.cycle()
                + ": "
                + r.body().substring(0, Math.min(200, r.body().length())));
      } else if ((r.body().contains("\"code\":\"expired\"")
              || r.body().contains("\"code\":\"not-yet-valid\""))
          && System.getenv("CRASH_SHIFTS") != null) {
        // With the server's clock moved, a chain may have expired, or not yet begun, by its
        // reading: refused either way.
        count("recheck-refused-by-shifted-clock");
      } else if (now.isBefore(s.expiry().minusSeconds(1))
          && !r.body().contains("presentation-spent")) {
        fail(
            "spent presentation answered "
                + r.statusCode()
                + " not presentation-spent: "
                + r.body());
      }
    }
    count("spent-rechecked", checked);
    int witnessed = 0;
    for (Seen s : new ArrayList<>(RECEIPTS.values())) {
      boolean recent = s.cycle() >= cycle - 1;
      if (!recent && ThreadLocalRandom.current().nextInt(10) != 0) {
        continue;
      }
      ObjectNode w = JSON.createObjectNode();
      w.set("receipt", s.receipt());
      w.put("envelope_hex", s.envelopeHex());
      HttpResponse<String> r =
          SoakClient.post("/v1/mesh/witness", w.toString(), "application/json");
      witnessed++;
      if (r.statusCode() != 200 || !r.body().contains("\"held\":true")) {
        fail(
            "receipt "
                + s.sequence()
                + " (cycle "
                + s.cycle()
                + ") not held: "
                + r.statusCode()
                + " "
                + r.body());
      }
    }
    count("witness-rechecked", witnessed);
    CrashFaults.checkRefusedNotSpent();
  }

  static void one() throws Exception {
    int pick = ThreadLocalRandom.current().nextInt(100);
    String json = "application/json";
    if (pick < 15) {
      seen(
          "chat",
          SoakClient.post(
              "/v1/chat/completions",
              SoakClient.chat(pick % 2 == 0, 16, "200000").toString(),
              json));
    } else if (pick < 22) {
      seen(
          "responses",
          SoakClient.post("/v1/responses", SoakClient.responses(pick % 2 == 0).toString(), json));
    } else if (pick < 26) {
      seen(
          "decision",
          SoakClient.post("/v1/chat/completions", SoakClient.decision().toString(), json));
    } else if (pick < 70) {
      GrantChain g;
      Instant expiry;
      int kind = pick % 4;
      if (kind == 0) {
        g = longGrant;
      } else if (kind == 1) {
        g = shortGrant;
      } else if (kind == 2) {
        g = smallGrant;
      } else {
        g = issue(Duration.ofMillis(ThreadLocalRandom.current().nextLong(1500, 5000)), 2_000_000);
      }
      expiry = g.leaf().grant().expiry();
      ObjectNode body =
          pick < 60
              ? SoakClient.chat(pick % 3 == 0, 16, "200000")
              : SoakClient.responses(pick % 3 == 0);
      body.put(
          "jcp_presentation", Jcp.present(CALLER, g, GrantedServeRequest.derive(body)).toHex());
      String text = body.toString();
      String path = body.has("input") ? "/v1/responses" : "/v1/chat/completions";
      HttpResponse<String> r = SoakClient.post(path, text, json);
      seen("granted", r);
      if (r.statusCode() == 200) {
        SPENT.add(new Spent(path, text, expiry, cycle));
        if (pick % 5 == 0) {
          HttpResponse<String> again = SoakClient.post(path, text, json);
          count("replay:" + again.statusCode());
          if (again.statusCode() == 200) {
            fail("presentation served twice (live), cycle " + cycle);
          }
        }
      }
    } else if (pick < 80) {
      List<Seen> all = new ArrayList<>(RECEIPTS.values());
      if (!all.isEmpty()) {
        Seen s = all.get(ThreadLocalRandom.current().nextInt(all.size()));
        ObjectNode w = JSON.createObjectNode();
        w.set("receipt", s.receipt());
        w.put("envelope_hex", s.envelopeHex());
        HttpResponse<String> r = SoakClient.post("/v1/mesh/witness", w.toString(), json);
        count("witness:" + r.statusCode());
        if (r.statusCode() != 200) {
          fail("live witness of " + s.sequence() + ": " + r.statusCode() + " " + r.body());
        }
      }
    } else if (pick < 82) {
      GrantChain g = issue(Duration.ofSeconds(5), 1_000_000);
      Revocation rv = Revocation.sign(CALLER, g, Instant.now());
      count(
          "revoke:"
              + SoakClient.post(
                      "/v1/mesh/revocations", "{\"revocation\": \"" + rv.toHex() + "\"}", json)
                  .statusCode());
    } else {
      // Exhaust the small grant: big ceilings.
      ObjectNode body = SoakClient.chat(false, 64, "900000");
      body.put(
          "jcp_presentation",
          Jcp.present(CALLER, smallGrant, GrantedServeRequest.derive(body)).toHex());
      String text = body.toString();
      HttpResponse<String> r = SoakClient.post("/v1/chat/completions", text, json);
      seen("small", r);
      if (r.statusCode() == 200) {
        SPENT.add(
            new Spent("/v1/chat/completions", text, smallGrant.leaf().grant().expiry(), cycle));
      }
    }
  }

  static void seen(String what, HttpResponse<String> r) throws Exception {
    String body = r.body();
    String code = "";
    if (r.statusCode() != 200) {
      int c = body.indexOf("\"code\":\"");
      if (c >= 0) {
        code = ":" + body.substring(c + 8, body.indexOf('"', c + 8));
      }
    }
    count(answerTag + what + ":" + r.statusCode() + code);
    if (r.statusCode() != 200) {
      return;
    }
    for (String line : body.lines().toList()) {
      String t = line.startsWith("data: ") ? line.substring(6) : line;
      if (!t.startsWith("{") || !t.contains("envelope_hex")) {
        continue;
      }
      JsonNode n = JSON.readTree(t);
      JsonNode e = n.findParent("envelope_hex");
      if (e == null || e.get("receipt") == null) {
        continue;
      }
      long seq = e.get("receipt").get("sequence").asLong();
      Seen s =
          new Seen(
              seq,
              e.get("receipt"),
              e.get("envelope_hex").asText(),
              e.path("envelope_id").asText(),
              cycle);
      Seen before = RECEIPTS.putIfAbsent(seq, s);
      if (before != null && !before.envelopeId().equals(s.envelopeId())) {
        fail(
            "two receipts with sequence "
                + seq
                + " (cycles "
                + before.cycle()
                + ", "
                + cycle
                + ")");
      }
    }
  }

  static GrantChain issue(Duration life, long budget) throws Exception {
    Instant now = Instant.now();
    return Jcp.issueRoot(CALLER, steward, budget, now.minusSeconds(120), now.plus(life));
  }

  record Result(int rc, String out) {}

  static Result cli(int timeoutS, String... args) throws Exception {
    List<String> cmd = new ArrayList<>();
    cmd.add(repo.resolve("mesh").toString());
    cmd.addAll(List.of(args));
    ProcessBuilder pb = new ProcessBuilder(cmd);
    pb.environment().put("MESH_NO_BUILD", "1");
    pb.redirectErrorStream(true);
    Path out = Files.createTempFile(dir, "cli", ".txt");
    pb.redirectOutput(out.toFile());
    Process p = pb.start();
    if (!p.waitFor(timeoutS, TimeUnit.SECONDS)) {
      kill(p);
    }
    String text = Files.readString(out, StandardCharsets.UTF_8);
    Files.delete(out);
    return new Result(p.exitValue(), text);
  }

  static String tail(String s) {
    return s.length() < 600 ? s.strip() : s.substring(s.length() - 600).strip();
  }

  static void count(String what) {
    count(what, 1);
  }

  static void count(String what, long n) {
    COUNTS.computeIfAbsent(what, k -> new AtomicLong()).addAndGet(n);
  }

  static void fail(String what) {
    FAILS.incrementAndGet();
    System.out.println(Instant.now() + " FAIL " + what);
  }
}
