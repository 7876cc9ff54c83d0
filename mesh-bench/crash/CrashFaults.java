import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.meshjava.jcp.GrantChain;
import org.meshjava.jcp.Jcp;
import org.meshjava.openai.GrantedServeRequest;

/**
 * The faults of a PostgreSQL crash run beside the SIGKILL of {@code mesh serve} (see README.md):
 * the database killed, stopped or frozen under load, and a second steward on the same journal. Each
 * runs while the cycle's load does and leaves the server to the cycle's kill.
 */
final class CrashFaults {
  private CrashFaults() {}

  /** A granted request refused after its journal failed: its presentation must not be spent. */
  record Refused(String path, String body) {}

  static final List<Refused> REFUSED = Collections.synchronizedList(new ArrayList<>());

  /**
   * Kills ({@code pg-kill}), stops ({@code pg-restart}) or freezes ({@code pg-freeze}) the database
   * under load, brings it back, and checks that the steward, whose journal lost its session,
   * refuses clearly until it is restarted (SPEC.md 60.7, "Faults"). Returns what was done.
   */
  static String database(Process p, String phase) throws Exception {
    CrashPostgres pg = CrashDriver.pg;
    ThreadLocalRandom rnd = ThreadLocalRandom.current();
    // The load goes on through the outage and after it, until the cycle's kill.
    CrashDriver.loadEnd = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    String at = phase;
    boolean lost = true;
    switch (phase) {
      case "pg-kill" -> {
        CrashDriver.answerTag = "db-down/";
        pg.kill();
        Thread.sleep(rnd.nextLong(300, 2500));
        if (rnd.nextInt(3) == 0) {
          at = "pg-kill+start-while-down";
          startWhileDown(p);
        }
        pg.start();
      }
      case "pg-restart" -> {
        CrashDriver.answerTag = "db-down/";
        pg.stopFast();
        Thread.sleep(rnd.nextLong(200, 1500));
        pg.start();
      }
      case "pg-syncrep" -> {
        // Every COMMIT waits for a standby that never comes: committed on the server, unanswered
        // at the steward, whose write gives up after its socketTimeout (the lease). The subtle
        // case of SPEC.md 60.7, "Faults", for every batch in flight; reset, the waits end.
        CrashDriver.answerTag = "db-down/";
        pg.sql("ALTER SYSTEM SET synchronous_standby_names = 'nobody'", "SELECT pg_reload_conf()");
        Thread.sleep(CrashDriver.LEASE_MS + rnd.nextLong(1000, 3000));
        pg.sql("ALTER SYSTEM RESET synchronous_standby_names", "SELECT pg_reload_conf()");
      }
      case "steward-freeze" -> {
        // The steward stops speaking for longer than its lease (a long GC pause, a frozen VM):
        // the server ends its session and lock, so once resumed it must refuse, not write.
        CrashDriver.answerTag = "db-down/";
        new ProcessBuilder("kill", "-STOP", Long.toString(p.pid())).start().waitFor();
        Thread.sleep(CrashDriver.LEASE_MS + rnd.nextLong(1000, 3000));
        new ProcessBuilder("kill", "-CONT", Long.toString(p.pid())).start().waitFor();
      }
      case "pg-freeze" -> {
        // all: the server stops answering. postmaster: the journal's session goes on, new
        // connections hang. backend: the journal's session alone stops; it may be frozen with a
        // COMMIT unread in its socket, which it reads and commits once thawed, after the journal
        // gave up on it: the commit whose answer is lost (SPEC.md 60.7, "Faults").
        String[] kinds = {"all", "postmaster", "backend"};
        String kind =
            System.getenv("CRASH_FREEZE") != null
                ? System.getenv("CRASH_FREEZE")
                : kinds[rnd.nextInt(kinds.length)];
        CrashDriver.answerTag = kind.equals("postmaster") ? "postmaster-frozen/" : "db-down/";
        List<ProcessHandle> frozen =
            kind.equals("backend") ? pg.freezeJournalSession() : pg.freeze(kind.equals("all"));
        Thread.sleep(CrashDriver.LEASE_MS + rnd.nextLong(1000, 3000));
        pg.thaw(frozen);
        at = "pg-freeze-" + kind + (frozen.isEmpty() ? "-none" : "");
        lost = !kind.equals("postmaster") && !frozen.isEmpty();
      }
      default -> throw new IllegalArgumentException(phase);
    }
    CrashDriver.answerTag = lost ? "db-back/" : "";
    Thread.sleep(1500);
    if (Files.readString(CrashDriver.dir.resolve("serve.log")).contains("commit went unanswered")) {
      CrashDriver.count("commit-unanswered:" + at);
      Files.copy(
          CrashDriver.dir.resolve("serve.log"),
          CrashDriver.dir.resolve("serve-unanswered-" + CrashDriver.cycle + ".log"));
    }
    if (lost && p.isAlive()) {
      probe();
    }
    CrashDriver.loadEnd = System.nanoTime();
    return at;
  }

  /**
   * With the database back: a steward whose journal lost its session reports itself not ready and
   * refuses serves {@code 503 not_recorded} until restarted; it never reconnects.
   */
  static void probe() throws Exception {
    // The journal learns of the loss at its next write or heartbeat (a third of the lease); a
    // loaded machine may take a while longer to get there.
    HttpResponse<String> ready = SoakClient.get("/readyz");
    for (int i = 0; i < 20 && ready.statusCode() == 200; i++) {
      Thread.sleep(500);
      ready = SoakClient.get("/readyz");
    }
    CrashDriver.count("probe-readyz:" + ready.statusCode());
    if (ready.statusCode() != 503 || !ready.body().contains("\"writable\":false")) {
      CrashDriver.fail(
          "readyz after the database came back (cycle "
              + CrashDriver.cycle
              + "): "
              + ready.statusCode()
              + " "
              + ready.body());
    }
    HttpResponse<String> plain =
        SoakClient.post(
            "/v1/chat/completions",
            SoakClient.chat(false, 16, "200000").toString(),
            "application/json");
    expectNotRecorded("ungranted", plain);
    var body = SoakClient.chat(false, 16, "200000");
    GrantChain g = CrashDriver.longGrant;
    body.put(
        "jcp_presentation",
        Jcp.present(CrashDriver.CALLER, g, GrantedServeRequest.derive(body)).toHex());
    HttpResponse<String> granted =
        SoakClient.post("/v1/chat/completions", body.toString(), "application/json");
    expectNotRecorded("granted", granted);
    if (granted.statusCode() == 503) {
      REFUSED.add(new Refused("/v1/chat/completions", body.toString()));
    } else if (granted.statusCode() == 200) {
      CrashDriver.SPENT.add(
          new CrashDriver.Spent(
              "/v1/chat/completions",
              body.toString(),
              g.leaf().grant().expiry(),
              CrashDriver.cycle));
    }
  }

  private static void expectNotRecorded(String what, HttpResponse<String> r) throws Exception {
    String retry = r.headers().firstValue("x-should-retry").orElse("-");
    CrashDriver.count("probe-" + what + ":" + r.statusCode() + " retry=" + retry);
    if (r.statusCode() != 503 || !r.body().contains("not_recorded")) {
      CrashDriver.fail(
          what
              + " serve after the database came back (cycle "
              + CrashDriver.cycle
              + "): "
              + r.statusCode()
              + " "
              + r.body().substring(0, Math.min(300, r.body().length())));
    }
  }

  /** After a restart: a presentation refused by a failed journal was not spent (60.7). */
  static void checkRefusedNotSpent() throws Exception {
    List<Refused> all;
    synchronized (REFUSED) {
      all = new ArrayList<>(REFUSED);
      REFUSED.clear();
    }
    for (Refused f : all) {
      HttpResponse<String> r = SoakClient.post(f.path(), f.body(), "application/json");
      CrashDriver.count("refused-resent:" + r.statusCode());
      if (r.body().contains("presentation-spent")) {
        CrashDriver.fail(
            "a presentation refused not_recorded by a failed journal was spent after the restart"
                + " (cycle "
                + CrashDriver.cycle
                + ")");
      }
      if (r.statusCode() == 200) {
        CrashDriver.SPENT.add(
            new CrashDriver.Spent(
                f.path(),
                f.body(),
                CrashDriver.longGrant.leaf().grant().expiry(),
                CrashDriver.cycle));
      }
    }
  }

  /** Kills the server, then starts one while the database is down: it must not listen. */
  static void startWhileDown(Process p) throws Exception {
    CrashDriver.kill(p);
    Process s = CrashDriver.launch(CrashDriver.port, "port", "serve-down.log");
    String outcome = await(s, CrashDriver.dir.resolve("port"));
    CrashDriver.count("start-while-down:" + outcome);
    Path log = CrashDriver.dir.resolve("serve-down.log");
    if (!Files.exists(CrashDriver.dir.resolve("serve-down-first.log"))) {
      Files.copy(log, CrashDriver.dir.resolve("serve-down-first.log"));
    }
    if (outcome.equals("listening")) {
      CrashDriver.fail(
          "mesh serve listened with its database down (cycle " + CrashDriver.cycle + ")");
    }
    CrashDriver.kill(s);
  }

  /**
   * A second steward with the same key while the first serves must be refused; then, with the first
   * killed, two started together: exactly one may listen.
   */
  static String twin(Process p) throws Exception {
    Path twinPort = CrashDriver.dir.resolve("port-twin");
    Process b = CrashDriver.launch(CrashDriver.port + 2, "port-twin", "serve-twin.log");
    String second = await(b, twinPort);
    CrashDriver.count("twin-beside-live:" + second);
    if (second.equals("listening")) {
      CrashDriver.fail(
          "a second mesh serve on the journal listened (cycle " + CrashDriver.cycle + ")");
    } else if (!Files.readString(CrashDriver.dir.resolve("serve-twin.log")).contains("LOCKED")
        && !Files.readString(CrashDriver.dir.resolve("serve-twin.log")).contains("held by")) {
      CrashDriver.fail(
          "the second mesh serve did not say the journal is held: "
              + CrashDriver.tail(Files.readString(CrashDriver.dir.resolve("serve-twin.log"))));
    }
    CrashDriver.kill(b);
    CrashDriver.kill(p);
    CrashDriver.loadEnd = System.nanoTime();
    for (int attempt = 0; attempt < 2; attempt++) {
      Process x = CrashDriver.launch(CrashDriver.port, "port", "serve.log");
      Process y = CrashDriver.launch(CrashDriver.port + 2, "port-twin", "serve-twin.log");
      var fx =
          java.util.concurrent.CompletableFuture.supplyAsync(
              () -> awaitQuietly(x, CrashDriver.dir.resolve("port")));
      var fy = java.util.concurrent.CompletableFuture.supplyAsync(() -> awaitQuietly(y, twinPort));
      String ox = fx.get();
      String oy = fy.get();
      CrashDriver.kill(x);
      CrashDriver.kill(y);
      int up = (ox.equals("listening") ? 1 : 0) + (oy.equals("listening") ? 1 : 0);
      String logs =
          Files.readString(CrashDriver.dir.resolve("serve.log"))
              + Files.readString(CrashDriver.dir.resolve("serve-twin.log"));
      // Both refused for the driver's --fresh-chain guess (start() corrects it the same way).
      if (up == 0 && attempt == 0 && logs.contains("drop --fresh-chain")) {
        CrashDriver.fresh = false;
        continue;
      }
      if (up == 0 && attempt == 0 && logs.contains("pass --fresh-chain")) {
        CrashDriver.fresh = true;
        continue;
      }
      CrashDriver.count("twin-race-listening:" + up);
      if (up != 1) {
        CrashDriver.fail(
            "two mesh serve started together: "
                + up
                + " listened ("
                + ox
                + ", "
                + oy
                + "), cycle "
                + CrashDriver.cycle);
      }
      break;
    }
    return "twin";
  }

  private static String awaitQuietly(Process p, Path portFile) {
    try {
      return await(p, portFile);
    } catch (Exception e) {
      return "error " + e;
    }
  }

  /** Waits until {@code p} listens ({@code portFile} written) or exits; returns which. */
  static String await(Process p, Path portFile) throws Exception {
    long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(180);
    while (System.nanoTime() < until) {
      if (Files.exists(portFile) && Files.size(portFile) > 0) {
        return "listening";
      }
      if (!p.isAlive()) {
        return "exit-" + p.exitValue();
      }
      Thread.sleep(50);
    }
    return "undecided";
  }
}
