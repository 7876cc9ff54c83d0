package org.meshjava.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;
import static org.meshjava.cli.MeshCommandTest.mesh;
import static org.meshjava.cli.MeshCommandTest.published;

import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.meshjava.cli.MeshCommandTest.Run;

/**
 * Every class of user error gets one line on stderr that names the file or flag and says why, and a
 * non-zero exit: unreadable, binary and empty files, unknown flags, values out of range.
 */
class CliErrorsTest {
  @TempDir Path tmp;

  /**
   * {@code mesh grant issue} by a new key {@code c.key} to itself, into {@code out}, with {@code
   * terms} (budget, times).
   */
  private Run issueToSelf(Path out, String... terms) {
    Path key = tmp.resolve("c.key");
    String did = mesh("key", "generate", "--out", key.toString(), "--force").out().strip();
    java.util.List<String> args =
        new java.util.ArrayList<>(
            java.util.List.of(
                "grant", "issue", "--issuer-key", key.toString(), "--subject", did, "--out"));
    args.add(out.toString());
    args.addAll(java.util.List.of(terms));
    return mesh(args.toArray(String[]::new));
  }

  /** One line, starting with the command's name, and nothing on stdout. */
  private static void assertOneLineError(Run r, int code, String command) {
    assertThat(r.code()).as(r.err()).isEqualTo(code);
    assertThat(r.err().strip().lines()).as(r.err()).hasSize(1);
    assertThat(r.err()).startsWith(command + ": ");
    assertThat(r.out()).isEmpty();
  }

  @Test
  void unreadableFile_missing_saysNoSuchFile() {
    Run r = mesh("verify", tmp.resolve("missing.hex").toString());
    assertOneLineError(r, 1, "mesh verify");
    assertThat(r.err()).contains("missing.hex").contains("no such file");
  }

  @Test
  void journalExport_intoAMissingFolder_saysNoSuchFile() throws Exception {
    Path journal = tmp.resolve("steward.journal");
    org.meshjava.journal.FileJournal.open(journal).close();
    Path out = tmp.resolve("missing").resolve("out.journal");
    Run r = mesh("journal", "export", journal.toString(), "--out", out.toString());
    assertOneLineError(r, 1, "mesh journal export");
    assertThat(r.err()).contains(out.toString()).contains("no such file");
  }

  @Test
  void aSubcommandsVersion_isTheCommandsVersion_notAnEmptyLine() {
    Run top = mesh("-V");
    assertThat(top.code()).isZero();
    assertThat(top.out()).isNotBlank();
    for (String[] sub :
        new String[][] {{"key", "-V"}, {"journal", "verify", "--version"}, {"grant", "-V"}}) {
      Run r = mesh(sub);
      assertThat(r.code()).as(String.join(" ", sub)).isZero();
      assertThat(r.out()).as(String.join(" ", sub)).isEqualTo(top.out());
    }
  }

  @Test
  void unreadableFile_aFolder_saysSo() {
    Run r = mesh("key", "show", "--key", tmp.toString());
    assertOneLineError(r, 1, "mesh key show");
    assertThat(r.err()).contains(tmp.toString()).contains("it is a folder");
  }

  @Test
  void unreadableFile_withoutPermission_saysPermissionDenied() throws Exception {
    Path f = tmp.resolve("locked.hex");
    Files.writeString(f, "00\n");
    boolean posix = Files.getFileStore(f).supportsFileAttributeView("posix");
    if (posix) {
      Files.setPosixFilePermissions(f, PosixFilePermissions.fromString("---------"));
    }
    if (posix && !Files.isReadable(f)) {
      Run r = mesh("verify", f.toString());
      assertOneLineError(r, 1, "mesh verify");
      assertThat(r.err()).contains("locked.hex").contains("permission denied");
    } else {
      // Root (as on CI) reads a file whatever its mode; the mapping is still checked here, and
      // the whole path through a file the OS refuses to read is the next test.
      assertThat(UserFile.reason(new AccessDeniedException(f.toString())))
          .isEqualTo("permission denied");
    }
  }

  @Test
  void unreadableFile_thatTheOsFailsToRead_evenForRoot_namesItAndTheReason() {
    // Reading /proc/self/mem from offset 0 fails with EIO for every user, root included: an
    // unreadable file on any Linux host. Elsewhere there is no such file to borrow.
    Path mem = Path.of("/proc/self/mem");
    assumeTrue(Files.exists(mem), "no /proc/self/mem on this platform (Linux only)");
    Run r = mesh("verify", mem.toString());
    assertOneLineError(r, 1, "mesh verify");
    assertThat(r.err()).contains("cannot read").contains("/proc/self/mem: ");
    assertThat(r.err()).doesNotContain("Exception").doesNotContain("\tat ");
  }

  @Test
  void binaryFile_isNotText_notAnInternalDecoderMessage() throws Exception {
    Path f = tmp.resolve("random.bin");
    Files.write(f, HexFormat.of().parseHex("ff00fe8081c3"));
    Run v = mesh("verify", f.toString());
    assertOneLineError(v, 1, "mesh verify");
    assertThat(v.err()).contains("random.bin is not text").doesNotContain("Input length");
    Run k = mesh("key", "show", "--key", f.toString());
    assertOneLineError(k, 1, "mesh key show");
    assertThat(k.err()).contains("random.bin is not text");
    // Valid UTF-8 that holds NUL bytes is still binary.
    Files.write(f, new byte[] {'a', 0, 'b', '\n'});
    assertThat(mesh("verify", f.toString()).err()).contains("is not text");
  }

  @Test
  void emptyFile_verifiesNothing_andExitsNonZero() throws Exception {
    Path empty = tmp.resolve("empty.hex");
    Files.writeString(empty, "\n\n");
    Run r = mesh("verify", empty.toString());
    assertOneLineError(r, 1, "mesh verify");
    assertThat(r.err()).contains("empty.hex holds no envelopes");
    // One good file beside an empty one is still a mistake worth a non-zero exit.
    Run both = mesh("verify", published("reference/envelope.hex").toString(), empty.toString());
    assertThat(both.code()).isEqualTo(1);
  }

  @Test
  void emptyKeyFile_isRefusedNamingTheFile() throws Exception {
    Path empty = tmp.resolve("empty.key");
    Files.writeString(empty, "");
    Run r = mesh("key", "show", "--key", empty.toString());
    assertOneLineError(r, 1, "mesh key show");
    assertThat(r.err()).contains("empty.key");
  }

  @Test
  void aKeyFileOpenToOtherUsers_isUsedWithAWarning_andAPrivateOneWithout() throws Exception {
    Path key = tmp.resolve("steward.key");
    assertThat(mesh("key", "generate", "--out", key.toString()).code()).isZero();
    Run private_ = mesh("key", "show", "--key", key.toString());
    assertThat(private_.code()).isZero();
    assertThat(private_.err()).isEmpty();
    Files.setPosixFilePermissions(
        key, java.nio.file.attribute.PosixFilePermissions.fromString("rw-r--r--"));
    Run open = mesh("key", "show", "--key", key.toString());
    assertThat(open.code()).isZero();
    assertThat(open.out()).isEqualTo(private_.out());
    assertThat(open.err())
        .contains("steward.key is open to other users (mode rw-r--r--)")
        .contains("chmod 600");
  }

  @Test
  void serveSettingsOutOfRange_areRefusedByTheirFlagAndKey_beforeAnythingStarts() throws Exception {
    Run flag = mesh("serve", "--max-body-bytes", "-5");
    assertOneLineError(flag, 1, "mesh serve");
    assertThat(flag.err())
        .contains(
            "--max-body-bytes (\"max_body_bytes\" in a configuration) must be at least 1, not -5");
    Path config = tmp.resolve("serve.json");
    Files.writeString(config, "{\"max_concurrent_serves\": 0}");
    Run configured = mesh("serve", "--config", config.toString());
    assertOneLineError(configured, 1, "mesh serve");
    assertThat(configured.err()).contains("\"max_concurrent_serves\" in a configuration)");
    Run ceiling = mesh("serve", "--default-ceiling-uj", "-1");
    assertOneLineError(ceiling, 1, "mesh serve");
    assertThat(ceiling.err()).contains("--default-ceiling-uj");
  }

  /**
   * Regression: a --revocations file that could not be read (a folder, binary, over the size bound)
   * was read only after the steward and its backends had started (their lines printed, up to a
   * gigabyte of heap and seconds spent); it is read with the other files, before anything starts.
   */
  @Test
  void serve_revocationsFileThatCannotBeRead_isRefusedBeforeAnythingStarts() throws Exception {
    Path folder = Files.createDirectory(tmp.resolve("revocations"));
    Path journal = tmp.resolve("steward.journal");
    Run r =
        mesh(
            "serve",
            "--port",
            "0",
            "--journal",
            journal.toString(),
            "--revocations",
            folder.toString());
    assertOneLineError(r, 1, "mesh serve");
    assertThat(r.err()).contains("cannot read file " + folder + ": it is a folder");
    assertThat(r.out()).as("nothing started").isEmpty();
    assertThat(journal).doesNotExist();
  }

  @Test
  void unknownFlag_isOneLineNamingItAndTheHelp_notTheWholeUsage() {
    Run r = mesh("verify", "--bogus", "x.hex");
    assertOneLineError(r, 2, "mesh verify");
    assertThat(r.err())
        .contains("'--bogus'")
        .contains("mesh verify --help")
        .doesNotContain("Usage");
    Run missing = mesh("key", "show");
    assertOneLineError(missing, 2, "mesh key show");
    assertThat(missing.err()).contains("--key");
  }

  @Test
  void aNegativeBudget_namesTheFlag_notTheLibrarysField() throws Exception {
    Run r = issueToSelf(tmp.resolve("g.hex"), "--budget-uj", "-5", "--expires", "PT1H");
    assertOneLineError(r, 1, "mesh grant issue");
    assertThat(r.err()).contains("--budget-uj must be zero or more").doesNotContain("budgetUj");
  }

  @Test
  void aBadSignature_isNamedOnce() throws Exception {
    byte[] env =
        HexFormat.of().parseHex(Files.readString(published("reference/envelope.hex")).strip());
    env[env.length - 3] ^= 1; // inside the signature
    Path f = tmp.resolve("bad.hex");
    Files.writeString(f, HexFormat.of().formatHex(env) + "\n");
    Run r = mesh("verify", f.toString());
    assertOneLineError(r, 1, "mesh verify");
    assertThat(r.err())
        .contains(f + " line 1: envelope 0: BAD_SIGNATURE: ")
        .containsOnlyOnce("BAD_SIGNATURE");
  }

  /**
   * {@code mesh serve} with {@code journal} and {@code more} arguments, on a port another socket
   * holds: it cannot listen. The port is bound after the journal is opened and its snapshot folder
   * claimed, and before the steward starts (its replay): a start refused for its steward is {@link
   * #serveOnAFreePort}'s. Unless {@code more} names a configuration, the start is given the
   * reference backends without MiniLM ({@link NoMiniLm}): no caller routes a serve.
   */
  static Run serveOnATakenPort(Path journal, String... more) throws java.io.IOException {
    try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return serveOn(taken.getLocalPort(), journal, more);
    }
  }

  /**
   * {@code mesh serve} as {@link #serveOnATakenPort} runs it, on a free port (0): for a start meant
   * to fail after its bind (its steward refused, a hook's throw), which would otherwise serve.
   */
  static Run serveOnAFreePort(Path journal, String... more) {
    return serveOn(0, journal, more);
  }

  /**
   * The one line of a start {@link #serveUntilListening} stopped: it names "cannot listen", as the
   * refusal of a port in use does, since both mean the start got as far as listening.
   */
  static final String STOPPED_BEFORE_LISTENING =
      "cannot listen: the test stopped the start where it would listen";

  /**
   * {@code mesh serve} as {@link #serveOnATakenPort} runs it, on a free port, stopped once its
   * steward has started (the journal replayed) and its server is built, where it would start
   * listening: for a test of what the steward refuses, which the port bound before the steward
   * starts would otherwise refuse first. Its refusal is {@link #STOPPED_BEFORE_LISTENING}.
   */
  static Run serveUntilListening(Path journal, String... more) {
    return ScopedValue.where(
            ServeCommand.SERVER_BUILT,
            server -> {
              throw new CliException(STOPPED_BEFORE_LISTENING);
            })
        .call(() -> serveOn(0, journal, more));
  }

  /** {@code mesh serve} as {@link #serveOnATakenPort} runs it, on {@code port}. */
  static Run serveOn(int port, Path journal, String... more) {
    List<String> args = new ArrayList<>(List.of("serve"));
    if (!List.of(more).contains("--config")) {
      args.addAll(List.of("--config", NoMiniLm.FILE.toString()));
    }
    args.addAll(
        List.of(
            "--journal",
            journal.toString(),
            "--meter",
            "estimator",
            "--host",
            "127.0.0.1",
            "--port",
            Integer.toString(port)));
    args.addAll(List.of(more));
    return mesh(args.toArray(String[]::new));
  }

  /**
   * A configuration file, one per test JVM, that serves the embedded reference backends without the
   * MiniLM decision engine; written when first used (a holder class), outside every test's folder,
   * so no test's listing of its own folder sees it.
   */
  private static final class NoMiniLm {
    static final Path FILE = write();

    private static Path write() {
      try {
        Path f = Files.createTempFile("mesh-no-minilm", ".json");
        f.toFile().deleteOnExit();
        return Files.writeString(f, "{\"default_decision_engine\": false}");
      } catch (java.io.IOException e) {
        throw new java.io.UncheckedIOException(e);
      }
    }
  }

  /**
   * Regression (the engines): a start refused at its bind was taken for one that may have served,
   * so the MiniLM decision engine it had built (its native session) was left open for good in a JVM
   * that runs the command in process. Since the port is bound before MiniLM loads, a port in use
   * loads none (ServeStartOrderTest), and nothing is left open to close.
   */
  @Test
  void serve_onAPortInUse_failsInOneLine_leavesNoNewJournal_andLoadsNoEngine() throws Exception {
    Path journal = tmp.resolve("new.journal");
    List<String> steps = new java.util.concurrent.CopyOnWriteArrayList<>();
    java.util.concurrent.atomic.AtomicInteger loads =
        new java.util.concurrent.atomic.AtomicInteger();
    Run r =
        ScopedValue.where(ServeCommand.CLEANING_UP, steps::add)
            .where(ServeCommand.LOADING_MINILM, ServeStartOrderTest.countedLoad(loads))
            .call(() -> serveOnATakenPort(journal, "--config", embeddedDefaults().toString()));
    assertThat(r.code()).as(r.err()).isEqualTo(1);
    assertThat(r.err()).contains("mesh serve: cannot listen");
    // The no-key warning goes to stderr with the error; stdout stays for what scripts read.
    assertThat(r.err()).contains("warning: no key file");
    assertThat(r.out()).doesNotContain("warning");
    assertThat(journal).doesNotExist();
    assertThat(loads).as("MiniLM loads").hasValue(0);
    assertThat(steps).as("the cleanup's steps").doesNotContain("engine");
  }

  /**
   * A configuration that changes nothing, so that {@link #serveOnATakenPort} keeps the embedded
   * defaults, MiniLM among them.
   */
  private Path embeddedDefaults() throws java.io.IOException {
    return Files.writeString(tmp.resolve("defaults.json"), "{}");
  }

  /**
   * Regression: a port in use said only {@code cannot listen: Failed to bind to /127.0.0.1:8080},
   * Jetty's words, with neither the reason nor what to do; the tour's second {@code mesh serve} on
   * 8080 while the first still runs is a new user's usual way to meet it.
   */
  @Test
  void serve_onAPortInUse_saysWhyAndWhatToDo() throws Exception {
    Run r = serveOnATakenPort(tmp.resolve("new.journal"));
    assertOneLineErrorAfterWarnings(r);
    assertThat(r.err())
        .contains("mesh serve: cannot listen on 127.0.0.1:")
        .contains(": Address already in use; another process listens there: stop it, or choose")
        .contains("another --port (0 picks a free one)")
        .doesNotContain("/127.0.0.1");
  }

  /**
   * Regression: {@code mesh serve} on a journal another steward holds said only that it was held,
   * where {@code mesh journal archive} and the other commands that take the lock say who may hold
   * it and what to do.
   */
  @Test
  void serve_onAJournalAnotherStewardHolds_saysWhatToDo() throws Exception {
    Path journal = tmp.resolve("held.journal");
    try (org.meshjava.journal.FileJournal held = org.meshjava.journal.FileJournal.open(journal)) {
      Run r =
          mesh(
              "serve",
              "--config",
              NoMiniLm.FILE.toString(),
              "--journal",
              journal.toString(),
              "--meter",
              "estimator",
              "--port",
              "0");
      assertOneLineErrorAfterWarnings(r);
      assertThat(r.err())
          .contains("mesh serve: journal " + journal + " is held by another steward")
          .contains("(a running mesh serve, or a mesh journal import, archive or resume-grants)")
          .contains("stop it first, or give this steward a journal of its own");
    }
    assertThat(journal).exists();
  }

  /**
   * Regression: {@code mesh serve --port 8081 --console} put the console on its default port, 8081,
   * beside the API (as does a {@code --console-port} equal to {@code --port}), and the start failed
   * with "cannot listen: Failed to bind to /127.0.0.1:8081", as if another process held it.
   */
  @Test
  void serve_withTheConsoleOnTheAPIsPort_saysToGiveItAnother() throws Exception {
    // One port said for both (refused before anything binds): the default-console case is the
    // same check, and binding 8081 here could meet another program's listener.
    int both = 21_498;
    Run r =
        mesh(
            "serve",
            "--meter",
            "estimator",
            "--port",
            Integer.toString(both),
            "--console",
            "--console-port",
            Integer.toString(both));
    assertOneLineErrorAfterWarnings(r);
    assertThat(r.err())
        .contains(
            "mesh serve: --console-port "
                + both
                + " is the API's port too; give the console another with --console-port"
                + " (0 picks a free one)")
        .doesNotContain("cannot listen");
  }

  /**
   * Regression: the console-on-the-API's-port check compared the hosts as typed, so an API on
   * {@code 0.0.0.0} with the console on {@code 127.0.0.1} (or {@code localhost} against {@code
   * 127.0.0.1}), one port for both, got past it and failed binding with "cannot listen".
   */
  @Test
  void serve_withTheConsoleOnTheAPIsPortUnderAnotherName_saysToGiveItAnother() throws Exception {
    int both = 22_011;
    for (String[] hosts :
        new String[][] {
          {"0.0.0.0", "127.0.0.1"}, {"localhost", "127.0.0.1"}, {"127.0.0.1", "0.0.0.0"}
        }) {
      Run r =
          mesh(
              "serve",
              "--meter",
              "estimator",
              "--host",
              hosts[0],
              "--port",
              Integer.toString(both),
              "--console",
              "--console-host",
              hosts[1],
              "--console-port",
              Integer.toString(both));
      assertOneLineErrorAfterWarnings(r);
      assertThat(r.err())
          .as(String.join(" and ", hosts))
          .contains("mesh serve: --console-port " + both + " is the API's port too")
          .doesNotContain("cannot listen");
    }
  }

  @Test
  void listenersClash_onOnePort_whenTheirAddressesMeet() {
    assertThat(new Listener("0.0.0.0", 9).clashesWith(new Listener("127.0.0.1", 9))).isTrue();
    assertThat(new Listener("127.0.0.1", 9).clashesWith(new Listener("0.0.0.0", 9))).isTrue();
    assertThat(new Listener("localhost", 9).clashesWith(new Listener("127.0.0.1", 9))).isTrue();
    assertThat(new Listener("::", 9).clashesWith(new Listener("::1", 9))).isTrue();
    assertThat(new Listener("::", 9).clashesWith(new Listener("127.0.0.1", 9))).isTrue();
    assertThat(new Listener("::1", 9).clashesWith(new Listener("0:0:0:0:0:0:0:1", 9))).isTrue();
    // Different ports, port 0 (a free one each), or two distinct addresses never clash; nor does
    // an IPv4 wildcard with an IPv6 address.
    assertThat(new Listener("0.0.0.0", 9).clashesWith(new Listener("127.0.0.1", 10))).isFalse();
    assertThat(new Listener("127.0.0.1", 0).clashesWith(new Listener("127.0.0.1", 0))).isFalse();
    assertThat(new Listener("127.0.0.1", 9).clashesWith(new Listener("127.0.0.2", 9))).isFalse();
    assertThat(new Listener("0.0.0.0", 9).clashesWith(new Listener("::1", 9))).isFalse();
    // A name that does not resolve is compared as typed; binding then names it.
    assertThat(new Listener("no-such-host.invalid", 9).clashesWith(new Listener("127.0.0.1", 9)))
        .isFalse();
  }

  /**
   * Regression: {@code mesh key generate --output k.key} said "Missing required option:
   * '--out=FILE'", never naming the {@code --output} that was typed (picocli checks required
   * options first), and {@code mesh serv} said "Unmatched argument at index 0: 'serv'" without the
   * suggestion picocli has for it.
   */
  @Test
  void aMistypedOptionOrCommand_isNamed_withWhatWasMeant() {
    Run option = mesh("key", "generate", "--output", tmp.resolve("k.key").toString());
    assertOneLineError(option, 2, "mesh key generate");
    assertThat(option.err())
        .contains("Unknown option: '--output'")
        .contains("did you mean --out?")
        .doesNotContain("Missing required");
    Run command = mesh("serv");
    assertOneLineError(command, 2, "mesh");
    assertThat(command.err()).contains("'serv'").contains("; did you mean serve");
    // A required option missing, with nothing mistyped, is still said so.
    Run missing = mesh("key", "generate");
    assertOneLineError(missing, 2, "mesh key generate");
    assertThat(missing.err()).contains("Missing required option: '--out=FILE'");
  }

  /**
   * Regression: an option's value that starts with {@code --} ({@code --subject --x}) was taken for
   * a mistyped option, so a missing required option was reported as "Unknown option: '--x'".
   */
  @Test
  void anOptionsValueStartingWithDashes_isNotNamedAsAnUnknownOption() {
    // Missing options are found before the key file is read, so it need not exist.
    Run r =
        mesh("grant", "issue", "--subject", "--x", "--issuer-key", tmp.resolve("i.key").toString());
    assertOneLineError(r, 2, "mesh grant issue");
    assertThat(r.err())
        .contains("Missing required options: ")
        .contains("'--out=FILE'")
        .doesNotContain("Unknown option")
        .doesNotContain("'--x'");
  }

  /** Exit 1 and one {@code mesh serve:} line, after any {@code warning:} lines. */
  private static void assertOneLineErrorAfterWarnings(Run r) {
    assertThat(r.code()).as(r.err()).isEqualTo(1);
    assertThat(r.err().lines().filter(l -> !l.startsWith("warning: ")).toList())
        .as(r.err())
        .hasSize(1)
        .allMatch(l -> l.startsWith("mesh serve: "));
  }

  @Test
  void serve_refusedToStartByItsSteward_leavesNoNewJournal() throws Exception {
    Path key = tmp.resolve("s.key");
    mesh("key", "generate", "--out", key.toString());
    Path journal = tmp.resolve("new.journal");
    // A key whose new journal records no receipt: the builder refuses, and closes the journal.
    Run r =
        mesh(
            "serve",
            "--config",
            NoMiniLm.FILE.toString(),
            "--key",
            key.toString(),
            "--journal",
            journal.toString(),
            "--meter",
            "estimator",
            "--port",
            "0");
    assertThat(r.code()).as(r.err()).isEqualTo(1);
    assertThat(r.err()).contains("--fresh-chain");
    assertThat(journal).doesNotExist();
    assertThat(tmp.resolve("new.journal.snapshots")).doesNotExist();
  }

  @Test
  void serve_throughASymlinkToNoJournalYet_createsItThere_andAFailedStartRemovesOnlyThatFile()
      throws Exception {
    Path journal = tmp.resolve("real.journal");
    Path link = Files.createSymbolicLink(tmp.resolve("link.journal"), journal.getFileName());
    Run r = serveOnATakenPort(link);
    assertThat(r.code()).as(r.err()).isEqualTo(1);
    // It got as far as listening: the journal was created through the link, not refused.
    assertThat(r.err()).contains("mesh serve: cannot listen");
    assertThat(journal).doesNotExist();
    assertThat(Files.isSymbolicLink(link)).isTrue();
  }

  /**
   * Regression: a regular file where the snapshot folder goes was read as a folder holding no
   * snapshot, so the steward started (a full replay) and only warned at stop that the snapshot
   * could not be saved. It is now refused at start, in one line naming the path, before the port is
   * tried, and the journal the start created is removed. Found by a tampering sweep.
   */
  @Test
  void serve_withAFileWhereTheSnapshotFolderGoes_isRefusedAtStartNamingIt() throws Exception {
    Path journal = tmp.resolve("new.journal");
    Path snapshots = tmp.resolve("new.journal.snapshots");
    Files.writeString(snapshots, "not a folder");
    Run r = serveOnATakenPort(journal);
    assertThat(r.code()).as(r.err()).isEqualTo(1);
    assertThat(r.err())
        .contains(
            "mesh serve: snapshot folder " + snapshots + ": it is not a folder; remove what is")
        // The library's words (FileSnapshotStore.checkFolder), then what the configuration can do.
        .contains("or keep the snapshots in another folder (name one with \"snapshots\": {\"dir\"")
        .doesNotContain("cannot listen");
    assertThat(r.err().lines().filter(l -> l.startsWith("mesh serve:"))).hasSize(1);
    assertThat(journal).doesNotExist();
    assertThat(snapshots).hasContent("not a folder");
  }

  @Test
  void serve_onAPortInUse_keepsAJournalThatExistedBefore() throws Exception {
    Path journal = tmp.resolve("old.journal");
    Files.writeString(journal, "");
    assertThat(serveOnATakenPort(journal).code()).isEqualTo(1);
    assertThat(journal).exists();
  }

  @Test
  void aJournalUrlOfAnotherScheme_isRefused_notTakenForAFileName() throws Exception {
    // As a file name, mysql://db/mesh was the file mysql:/db/mesh: "no journal at" for verify,
    // and for serve a journal created there under a folder named "mysql:".
    Run r = mesh("journal", "verify", "mysql://db.internal/mesh");
    assertOneLineError(r, 1, "mesh journal verify");
    assertThat(r.err())
        .contains("journal mysql://db.internal/mesh: a journal is a file or a PostgreSQL database")
        .contains("not a mysql URL");
    Path empty = Files.writeString(tmp.resolve("empty.journal"), "");
    Run importing = mesh("journal", "import", empty.toString(), "--to", "mysql://db/mesh");
    assertOneLineError(importing, 1, "mesh journal import");
    assertThat(importing.err()).contains("--to mysql://db/mesh: a postgresql:// URL");
    Path config = tmp.resolve("mesh.json");
    Files.writeString(config, "{\"journal\": \"mysql://db.internal/mesh\"}");
    assertThat(ServeConfig.read(config).journal()).contains("mysql://db.internal/mesh");
  }

  @Test
  void keyGenerate_forcedOntoAFolder_isRefused_andTheFolderKept() throws Exception {
    Path folder = Files.createDirectory(tmp.resolve("keys"));
    Run r = mesh("key", "generate", "--out", folder.toString(), "--force");
    assertOneLineError(r, 1, "mesh key generate");
    assertThat(r.err()).contains(folder + " is a folder");
    assertThat(folder).isDirectory();
    Path file = Files.writeString(tmp.resolve("notes.txt"), "mine");
    Run under = mesh("key", "generate", "--out", file.resolve("x.key").toString());
    assertOneLineError(under, 1, "mesh key generate");
    assertThat(under.err())
        .endsWith(file.toAbsolutePath() + " exists and is a file, not a folder\n");
    assertThat(file).hasContent("mine");
    Files.delete(file);
    // Forced onto a key, the key is replaced whole, and nothing else is left beside it.
    Path key = tmp.resolve("steward.key");
    String first = mesh("key", "generate", "--out", key.toString()).out();
    String second = mesh("key", "generate", "--out", key.toString(), "--force").out();
    assertThat(second).isNotEqualTo(first);
    assertThat(mesh("key", "show", "--key", key.toString()).out()).isEqualTo(second);
    try (var left = Files.list(tmp)) {
      assertThat(left.map(f -> f.getFileName().toString()))
          .containsExactlyInAnyOrder("keys", "steward.key");
    }
  }

  @Test
  void journalVerify_withSnapshotsNamingNoFolder_isRefused_notCheckedAgainstNothing()
      throws Exception {
    Path journal = tmp.resolve("steward.journal");
    try (org.meshjava.steward.Steward s =
        ReferenceSteward.builder(
                org.meshjava.core.crypto.SigningKey.generate(),
                org.meshjava.journal.FileJournal.open(journal))
            .build()) {
      var req = ReferenceSteward.request("one");
      s.serve(req, ReferenceSteward.payload(req));
    }
    Path typo = tmp.resolve("steward.journal.snapshot");
    Run r = mesh("journal", "verify", journal.toString(), "--snapshots", typo.toString());
    assertOneLineError(r, 1, "mesh journal verify");
    assertThat(r.err()).contains("--snapshots " + typo + ": no such folder");
    assertThat(mesh("journal", "verify", journal.toString()).code()).isZero();
  }

  @Test
  void aConfigurationThatIsNotJson_isNamedWithWhere_notJacksonsRedactedSource() throws Exception {
    Path config = Files.writeString(tmp.resolve("mesh.json"), "{\"port\": 8080,\n");
    Run r = mesh("serve", "--config", config.toString());
    assertOneLineError(r, 1, "mesh serve");
    assertThat(r.err())
        .contains(config + " is not JSON: line 2, column 1: Unexpected end-of-input")
        .doesNotContain("REDACTED")
        .doesNotContain("[Source");
  }

  @Test
  void journalProgressEvery_belowZero_isAUsageError_notSilence() throws Exception {
    Path journal = Files.writeString(tmp.resolve("empty.journal"), "");
    Run r = mesh("journal", "inspect", journal.toString(), "--progress-every", "-5");
    assertOneLineError(r, 2, "mesh journal inspect");
    assertThat(r.err()).contains("--progress-every must be 0 or more, not -5");
  }

  @Test
  void grantIssue_expiringBeforeItStarts_namesTheFlags_notTheLibrarysFields() throws Exception {
    Path out = tmp.resolve("g.hex");
    Run r = issueToSelf(out, "--budget-uj", "5", "--not-before", "PT2H", "--expires", "PT1H");
    assertOneLineError(r, 1, "mesh grant issue");
    assertThat(r.err()).contains("--expires (").contains(") must be after --not-before (");
    assertThat(out).doesNotExist();
  }

  @Test
  void grantIssue_windowsThatCollapseToOneSecond_orStartBeforeTheEpoch_nameTheFlags()
      throws Exception {
    // Grants carry whole seconds; the library truncates, so these used to pass the flag check
    // and fail in the library with its own field names (expiry, not_before).
    String[][] cases = {
      {"--expires", "2030-12-31T00:00:00.9Z", "--not-before", "2030-12-31T00:00:00Z"},
      {"--expires", "2030-12-31T00:00:00.5Z", "--not-before", "2030-12-31T00:00:00.2Z"},
      {"--expires", "PT1H", "--not-before", "1969-12-31T23:59:59Z"},
    };
    for (String[] c : cases) {
      Path out = tmp.resolve("g.hex");
      Run r = issueToSelf(out, "--budget-uj", "5", c[0], c[1], c[2], c[3]);
      assertOneLineError(r, 1, "mesh grant issue");
      assertThat(r.err()).as(r.err()).contains("--not-before (").doesNotContain("not_before");
      assertThat(out).doesNotExist();
    }
  }

  @Test
  void grantRevoke_fromBeforeTheEpoch_namesTheFlag_andWritesNothing() throws Exception {
    Path chain = tmp.resolve("g.hex");
    assertThat(issueToSelf(chain, "--budget-uj", "5", "--expires", "PT1H").code()).isZero();
    Path out = tmp.resolve("r.hex");
    // Before the library refused it, this wrote a revocation every steward refused as malformed.
    Run r =
        mesh(
            "grant",
            "revoke",
            "--issuer-key",
            tmp.resolve("c.key").toString(),
            "--chain",
            chain.toString(),
            "--from",
            "1969-12-31T23:59:59Z",
            "--out",
            out.toString());
    assertOneLineError(r, 1, "mesh grant revoke");
    assertThat(r.err()).contains("--from (").doesNotContain("revoked_from");
    assertThat(out).doesNotExist();
  }

  @Test
  void grantIssue_instantsWithAnOffset_areConverted_andOnesWithoutAZoneOrOutOfRange_areNamed()
      throws Exception {
    Path offset = tmp.resolve("offset.hex");
    assertThat(
            issueToSelf(offset, "--budget-uj", "5", "--expires", "2030-12-31T02:00:00+02:00")
                .code())
        .isZero();
    assertThat(
            org.meshjava.jcp.GrantChain.fromHex(Files.readString(offset).strip())
                .leaf()
                .grant()
                .expiry())
        .isEqualTo(java.time.Instant.parse("2030-12-31T00:00:00Z"));
    Run noZone =
        issueToSelf(tmp.resolve("z.hex"), "--budget-uj", "5", "--expires", "2030-12-31T00:00:00");
    assertOneLineError(noZone, 1, "mesh grant issue");
    assertThat(noZone.err()).contains("no time zone").contains("Z");
    Run tooFar =
        issueToSelf(tmp.resolve("f.hex"), "--budget-uj", "5", "--expires", "P106751991167300D");
    assertOneLineError(tooFar, 1, "mesh grant issue");
    assertThat(tooFar.err()).contains("P106751991167300D").doesNotContain("overflow");
  }

  @Test
  void grantPresent_outBodyWithoutBody_isRefusedBeforeWritingOut() throws Exception {
    Path key = tmp.resolve("c.key");
    Path chain = tmp.resolve("g.hex");
    assertThat(issueToSelf(chain, "--budget-uj", "5", "--expires", "PT1H").code()).isZero();
    Path request = Files.writeString(tmp.resolve("request.json"), "{\"prompt_hash\": \"zz\"}");
    Path out = tmp.resolve("p.hex");
    String[] present = {
      "grant",
      "present",
      "--caller-key",
      key.toString(),
      "--chain",
      chain.toString(),
      "--request",
      request.toString(),
      "--out",
      out.toString()
    };
    Run named = mesh(present);
    assertOneLineError(named, 1, "mesh grant present");
    assertThat(named.err()).contains(request + " is not a request: ");
    // A request that is one: --out would be written, and then the command fail.
    Files.writeString(
        request,
        "{\"prompt_hash\": \""
            + "ab".repeat(32)
            + "\", \"prompt_tokens\": 3, \"max_tokens\": 5, \"fidelity_floor\": 1,"
            + " \"joule_ceiling_uj\": 100000}");
    assertThat(mesh(present).code()).as("the request is whole").isZero();
    Files.delete(out);
    String[] withOutBody = java.util.Arrays.copyOf(present, present.length + 2);
    withOutBody[present.length] = "--out-body";
    withOutBody[present.length + 1] = tmp.resolve("body.json").toString();
    Run r = mesh(withOutBody);
    assertOneLineError(r, 1, "mesh grant present");
    assertThat(r.err()).contains("--out-body needs --body");
    assertThat(out).doesNotExist();
  }

  @Test
  void grantPresent_aBodyTheChatEndpointRefusesAsUnsupported_isRefusedInItsWords_andNothingWritten()
      throws Exception {
    Path chain = tmp.resolve("g.hex");
    assertThat(issueToSelf(chain, "--budget-uj", "5000", "--expires", "PT1H").code()).isZero();
    String metadata = "\"metadata\": {\"joule_ceiling_uj\": \"2000\"}";
    String[][] refused = {
      {"\"n\": 2, \"messages\": [{\"role\": \"user\", \"content\": \"hi\"}]", "n: "},
      {
        "\"messages\": [{\"role\": \"tool\", \"content\": \"42\"}]",
        "messages[0].role: no backend here calls tools"
      },
      {
        "\"messages\": [{\"role\": \"user\", \"name\": \"ann\", \"content\": \"hi\"}]",
        "messages[0].name: a speaker's name is not part of the prompt served"
      }
    };
    for (String[] c : refused) {
      Path body = Files.writeString(tmp.resolve("body.json"), "{" + c[0] + ", " + metadata + "}");
      Path out = tmp.resolve("p.hex");
      Run r =
          mesh(
              "grant",
              "present",
              "--caller-key",
              tmp.resolve("c.key").toString(),
              "--chain",
              chain.toString(),
              "--body",
              body.toString(),
              "--out",
              out.toString());
      assertOneLineError(r, 1, "mesh grant present");
      assertThat(r.err()).contains(body + ": " + c[1]);
      assertThat(out).doesNotExist();
    }
  }

  @Test
  void anEmptyFileName_isSaidToBeEmpty_notAFolderOrAnExistingFile() {
    Run generate = mesh("key", "generate", "--out", "");
    assertOneLineError(generate, 2, "mesh key generate");
    assertThat(generate.err())
        .contains("'--out'")
        .contains("a file name, not an empty one")
        .doesNotContain("folder");
    Run export = mesh("journal", "export", "x.journal", "--out", " ");
    assertOneLineError(export, 2, "mesh journal export");
    assertThat(export.err()).contains("a file name, not an empty one");
    Run subject = mesh("conformance", "run", "--subject", "");
    assertOneLineError(subject, 1, "mesh conformance run");
    assertThat(subject.err()).contains("--subject is empty");
  }

  @Test
  void serveConfig_withBackendsListed_servesOnlyThose() throws Exception {
    Path config = tmp.resolve("mesh.json");
    Files.writeString(config, "{\"backends\": [{\"type\": \"reference\", \"name\": \"small\"}]}");
    ServeConfig c = ServeConfig.read(config);
    assertThat(c.defaultDecisionEngine()).isFalse();
    Files.writeString(
        config,
        "{\"backends\": [{\"type\": \"reference\", \"name\": \"small\"}],"
            + " \"default_decision_engine\": true}");
    assertThat(ServeConfig.read(config).defaultDecisionEngine()).isTrue();
  }
}
