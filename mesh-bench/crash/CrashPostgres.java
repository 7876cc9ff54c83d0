import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.UserPrincipal;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The PostgreSQL server a crash run keeps its journal in, run by the driver itself rather than
 * through mesh-test-postgres: the run must kill its postmaster, freeze it and start it again on the
 * same data directory, which a test server (stopped and removed as one) does not offer. Runs the
 * binaries mesh-test-postgres unpacked (CRASH_PG_BIN), as {@code nobody} when this is root ({@code
 * initdb} and {@code postgres} refuse root), with {@code fsync} off: a killed postmaster leaves its
 * write-ahead log in the page cache, so that costs nothing a process crash could show.
 */
final class CrashPostgres {
  static final String DATABASE = "mesh";

  private final Path bin;
  private final Path data;
  private final Path log;
  private final int port;
  private final List<String> as = new ArrayList<>();
  private Process postmaster;

  CrashPostgres(Path bin, Path dir, int port) throws IOException {
    this.bin = bin;
    this.data = dir.resolve("pgdata");
    this.log = dir.resolve("postgres.log");
    this.port = port;
    if ("root".equals(System.getProperty("user.name"))) {
      as.addAll(List.of("setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups", "--"));
    }
  }

  /** The journal URL for {@code mesh serve} and the tools. */
  String url(long leaseMs) {
    return "postgresql://postgres@127.0.0.1:" + port + "/" + DATABASE + "?lease_ms=" + leaseMs;
  }

  /** Creates the data directory (once) and starts the server. */
  void init() throws Exception {
    if (!Files.exists(data.resolve("PG_VERSION"))) {
      Files.createDirectories(data);
      if (!as.isEmpty()) {
        UserPrincipal nobody =
            data.getFileSystem().getUserPrincipalLookupService().lookupPrincipalByName("nobody");
        Files.setOwner(data, nobody);
      }
      List<String> cmd = new ArrayList<>(as);
      cmd.addAll(
          List.of(
              bin.resolve("bin/initdb").toString(),
              "--pgdata=" + data,
              "--auth=trust",
              "--username=postgres",
              "--encoding=UTF8",
              "--no-locale",
              "--no-sync"));
      Process p =
          new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile()).start();
      if (p.waitFor() != 0) {
        throw new IllegalStateException("initdb failed: see " + log);
      }
      // In the data directory's own configuration, so every restart after a kill uses it too.
      Files.writeString(
          data.resolve("postgresql.conf"),
          String.join(
              "\n",
              "port = " + port,
              "listen_addresses = '127.0.0.1'",
              "unix_socket_directories = ''",
              "fsync = off",
              "max_connections = 100",
              "shared_buffers = 32MB",
              ""),
          java.nio.file.StandardOpenOption.APPEND);
    }
    start();
    try (Connection c = connect("postgres");
        Statement s = c.createStatement()) {
      s.execute("CREATE DATABASE " + DATABASE);
    } catch (SQLException e) {
      if (!"42P04".equals(e.getSQLState())) {
        throw e;
      }
    }
  }

  /** Starts the postmaster and waits until it takes connections (crash recovery included). */
  void start() throws Exception {
    List<String> cmd = new ArrayList<>(as);
    cmd.addAll(List.of(bin.resolve("bin/postgres").toString(), "-D", data.toString()));
    postmaster =
        new ProcessBuilder(cmd)
            .redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
            .start();
    long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
    SQLException last = null;
    while (System.nanoTime() < until) {
      if (!postmaster.isAlive()) {
        throw new IllegalStateException("postgres exited: see " + log);
      }
      try (Connection c = connect("postgres")) {
        return;
      } catch (SQLException e) {
        last = e;
      }
      Thread.sleep(100);
    }
    throw new IllegalStateException("postgres did not start: " + last);
  }

  Connection connect(String database) throws SQLException {
    return DriverManager.getConnection(
        "jdbc:postgresql://127.0.0.1:" + port + "/" + database + "?user=postgres&connectTimeout=5");
  }

  /** Runs {@code statements} in order on a connection of their own to the run's database. */
  void sql(String... statements) throws SQLException {
    try (Connection c = connect(DATABASE);
        Statement s = c.createStatement()) {
      for (String statement : statements) {
        s.execute(statement);
      }
    }
  }

  /** The postmaster's process and its backends, the postmaster first. */
  private List<ProcessHandle> processes() {
    List<ProcessHandle> all = new ArrayList<>();
    all.add(postmaster.toHandle());
    postmaster.toHandle().descendants().forEach(all::add);
    return all;
  }

  /**
   * SIGKILLs the postmaster and waits for its backends to notice and end: a new postmaster refuses
   * to start while an old backend still holds the shared memory.
   */
  void kill() throws Exception {
    List<ProcessHandle> all = processes();
    signal("KILL", List.of(all.getFirst()));
    postmaster.waitFor();
    for (ProcessHandle h : all) {
      if (!h.onExit().completeOnTimeout(h, 30, TimeUnit.SECONDS).get().isAlive()) {
        continue;
      }
      signal("KILL", List.of(h));
    }
  }

  /** A fast shutdown (SIGINT): sessions are ended, the server stops cleanly. */
  void stopFast() throws Exception {
    signal("INT", List.of(postmaster.toHandle()));
    if (!postmaster.waitFor(60, TimeUnit.SECONDS)) {
      kill();
    }
  }

  /** SIGSTOPs the postmaster alone, or the postmaster and every backend; returns what it froze. */
  List<ProcessHandle> freeze(boolean everything) throws Exception {
    List<ProcessHandle> which = everything ? processes() : List.of(postmaster.toHandle());
    signal("STOP", which);
    return which;
  }

  /**
   * SIGSTOPs the backend of the session holding a journal's advisory lock (the steward's journal
   * session) and returns it; none when no session holds one.
   */
  List<ProcessHandle> freezeJournalSession() throws Exception {
    List<ProcessHandle> which = new ArrayList<>();
    try (Connection c = connect(DATABASE);
        Statement s = c.createStatement();
        java.sql.ResultSet rs =
            s.executeQuery("SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND granted")) {
      while (rs.next()) {
        ProcessHandle.of(rs.getLong(1)).ifPresent(which::add);
      }
    }
    if (!which.isEmpty()) {
      signal("STOP", which);
    }
    return which;
  }

  void thaw(List<ProcessHandle> which) throws Exception {
    signal("CONT", which);
  }

  private static void signal(String sig, List<ProcessHandle> which) throws Exception {
    List<String> cmd = new ArrayList<>(List.of("kill", "-" + sig));
    which.forEach(h -> cmd.add(Long.toString(h.pid())));
    new ProcessBuilder(cmd).inheritIO().start().waitFor();
  }

  /** Stops the server at the end of a run. */
  void close() throws Exception {
    if (postmaster != null && postmaster.isAlive()) {
      stopFast();
    }
  }
}
