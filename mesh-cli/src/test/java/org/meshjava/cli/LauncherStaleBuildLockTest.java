package org.meshjava.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The launcher's build lock where {@code flock} is missing (macOS): a folder made by {@code mkdir},
 * holding its owner's process id. The launcher is copied with its {@code flock} check pointed at a
 * command that does not exist, so the folder lock runs here on Linux too.
 */
class LauncherStaleBuildLockTest {
  @TempDir Path root;

  /**
   * Regression: two launchers waiting on a lock whose owner was killed both found it dead, each
   * removed it and claimed it anew, the second removing the lock the first had just claimed, and
   * both built at once. A dead owner's lock is removed only under the claim guard now, which one
   * launcher holds at a time; the other waits for the build.
   */
  @Test
  void twoWaitersOnALockWhoseOwnerDied_buildOnce() throws Exception {
    Path log = launcherNeedingABuild("1");
    long dead = deadPid();
    Path lock = Files.createDirectories(root.resolve("mesh-cli/target/.mesh-build.lock.d"));
    Files.writeString(lock.resolve("pid"), dead + "\n", StandardCharsets.UTF_8);
    Path bin = holdingCat();
    List<Process> waiters = new ArrayList<>();
    for (int i = 0; i < 2; i++) {
      waiters.add(
          LauncherCopy.start(
              "bash",
              root,
              root.resolve("out-" + i + ".txt"),
              Map.of(
                  "JAVA_HOME",
                  System.getProperty("java.home"),
                  "PATH",
                  bin + ":" + System.getenv("PATH")),
              "--version"));
    }
    for (Process p : waiters) {
      assertThat(p.waitFor(60, TimeUnit.SECONDS)).as("the launcher ends").isTrue();
    }
    // The stand-in build makes no real jar, so each command then fails to start; only the builds
    // are under test.
    assertThat(Files.readAllLines(log)).containsExactly("start", "end");
  }

  /**
   * Regression: a lock without its owner's id (a launcher killed between making the lock and
   * writing its id, or one ended there by a waiter that moved its fresh lock away) was waited on by
   * every later launcher, for ever, since only a named owner could be found dead. Under the claim
   * guard, which a claimant holds until its id is written, such a lock is a dead claimant's, and is
   * taken over.
   */
  @Test
  void aLockWithoutItsOwnersId_isTakenOver_notWaitedOnForEver() throws Exception {
    Path log = launcherNeedingABuild("0");
    Path lock = Files.createDirectories(root.resolve("mesh-cli/target/.mesh-build.lock.d"));

    buildsOnce(log);
    assertThat(lock).doesNotExist();
  }

  /**
   * Regression: a launcher stopped (Ctrl-Z, SIGSTOP, a laptop asleep) between making the lock and
   * writing its id into it had its claim guard taken over once that was a minute old, and its
   * id-less lock with it: a second launcher built meanwhile, and the first, on waking, wrote its id
   * into that launcher's lock and built beside it ("start, start"). The guard names its holder now
   * and is taken over only once that process has ended: the second launcher waits for the stopped
   * one, naming it on stderr, however old the guard is dated, and builds nothing meanwhile; the
   * first, resumed, builds once. A stand-in {@code mkdir} stops its launcher right after making the
   * lock.
   */
  @Test
  void aLauncherStoppedInsideTheClaimGuard_isWaitedFor_notBuiltBeside() throws Exception {
    Path log = launcherNeedingABuild("0");
    Path stopped = root.resolve("stopped");
    Path bin = mkdirThatThen("kill -STOP $PPID", stopped);
    Process first =
        launcher(root.resolve("out-0.txt"), Map.of("PATH", bin + ":" + System.getenv("PATH")));
    Process second = null;
    Path secondOut = root.resolve("out-1.txt");
    try {
      awaitThat(() -> Files.exists(stopped), "the first launcher stops");
      // The old guard, a folder, was taken over once a minute old.
      dateClaimGuards(Instant.now().minus(Duration.ofMinutes(2)));
      second = launcher(secondOut, Map.of("MESH_CLAIM_GRACE_S", "0"));
      Process waiter = second;
      awaitThat(
          () ->
              !waiter.isAlive()
                  || Files.exists(log)
                  || Files.readString(secondOut).contains("mesh: waiting for process"),
          "the second launcher waits or builds");

      assertThat(Files.readString(secondOut))
          .contains(
              "mesh: waiting for process "
                  + first.pid()
                  + ", another mesh command in this checkout",
              "kill -CONT " + first.pid());
      assertThat(log).as("a build while the first launcher is stopped").doesNotExist();
      signal("-CONT", first.pid());
      assertThat(first.waitFor(30, TimeUnit.SECONDS)).as("the first launcher ends").isTrue();
    } finally {
      signal("-CONT", first.pid());
      first.destroyForcibly();
      if (second != null) {
        // Left waiting on the lock at its one-second pace; it would find the build fresh.
        second.destroyForcibly();
      }
    }

    assertThat(Files.readAllLines(log)).containsExactly("start", "end");
  }

  /**
   * Regression: a claim guard left by a launcher killed by SIGKILL inside it was waited on until it
   * was a minute old, without a word, by every launcher meanwhile. It names its holder now, and is
   * taken over at once when that process has ended; the lock it left without an id goes too. A
   * stand-in {@code mkdir} kills its launcher right after making the lock.
   */
  @Test
  void aClaimGuardLeftByALauncherKilledInsideIt_isTakenOverAtOnce() throws Exception {
    Path log = killedInsideTheClaimGuard();

    buildsOnce(log);
  }

  /**
   * Regression: a claim guard left by a killed launcher and dated in the future (the clock was set
   * back since) was never a minute old, so every later launcher waited on it for ever, silently.
   * Its date counts for nothing now: its holder has ended.
   */
  @Test
  void aClaimGuardLeftDatedAhead_isTakenOver_notWaitedOnForEver() throws Exception {
    Path log = killedInsideTheClaimGuard();
    dateClaimGuards(Instant.now().plus(Duration.ofHours(1)));

    buildsOnce(log);
  }

  /**
   * A claim guard left empty (its launcher killed between making it and writing itself into it),
   * dated in the future, is taken over once this launcher has seen it empty for {@code
   * MESH_CLAIM_GRACE_S}, here none, whatever its date says.
   */
  @Test
  void aClaimGuardLeftEmpty_isTakenOverAfterTheGrace_whateverItsDate() throws Exception {
    Path log = launcherNeedingABuild("0");
    Path target = root.resolve("mesh-cli/target");
    Files.createDirectories(target.resolve(".mesh-build.lock.d"));
    Path guard = Files.writeString(target.resolve(".mesh-build.claim"), "");
    Files.setLastModifiedTime(guard, FileTime.from(Instant.now().plus(Duration.ofHours(1))));

    buildsOnce(log, Map.of("MESH_CLAIM_GRACE_S", "0"));
    assertThat(guard).doesNotExist();
  }

  /**
   * A claim guard naming a process id that a later process has been given (this test's JVM, started
   * at another time than the guard says) is an ended holder's, taken over at once, not waited on
   * while that later process runs.
   */
  @Test
  void aClaimGuardWhoseProcessIdWasReused_isTakenOver() throws Exception {
    Path log = launcherNeedingABuild("0");
    Path target = root.resolve("mesh-cli/target");
    Files.createDirectories(target.resolve(".mesh-build.lock.d"));
    Files.writeString(
        target.resolve(".mesh-build.claim"),
        ProcessHandle.current().pid() + " 1\n",
        StandardCharsets.UTF_8);

    buildsOnce(log);
  }

  /**
   * Regression: a lock whose holder was another user's live build (a shared checkout) was taken for
   * a dead one's, as {@code kill -0} fails with EPERM for another user's process: it was removed
   * and a second build ran beside the first. The holder is looked up now, not signalled: the
   * launcher waits, saying so, and builds nothing beside it. Run as nobody where the tests run as
   * root, the holder being this test's JVM; else as this user, the holder being process 1 (another
   * user's).
   */
  @Test
  void aLockHeldByAnotherUsersLiveProcess_isWaitedFor_notTakenOver() throws Exception {
    Path log = launcherNeedingABuild("0");
    String shell = LauncherCopy.shellOfAnotherUserWhereRoot(root);
    long holder = ProcessHandle.current().pid();
    if (shell.equals("bash")) {
      holder = 1;
      String me = System.getProperty("user.name");
      assumeTrue(
          ProcessHandle.of(1).flatMap(h -> h.info().user()).filter(u -> !u.equals(me)).isPresent(),
          "process 1 is another user's");
    }
    Path lock = Files.createDirectories(root.resolve("mesh-cli/target/.mesh-build.lock.d"));
    Files.writeString(lock.resolve("pid"), holder + "\n", StandardCharsets.UTF_8);
    LauncherCopy.standInJdk(root);
    try (Stream<Path> all = Files.walk(root)) {
      for (Path p : all.toList()) {
        Files.setPosixFilePermissions(p, PosixFilePermissions.fromString("rwxrwxrwx"));
      }
    }
    Path out = root.resolve("out.txt");
    Process launcher =
        LauncherCopy.start(
            shell,
            root,
            out,
            Map.of("JAVA_HOME", LauncherCopy.standInJdk(root).toString()),
            "--version");
    try {
      awaitThat(
          () ->
              !launcher.isAlive()
                  || Files.readString(out).contains("waiting for another build of mesh-cli"),
          "the launcher waits or ends");

      assertThat(Files.readString(out))
          .contains("mesh: waiting for another build of mesh-cli to finish (process " + holder);
      assertThat(lock.resolve("pid")).exists();
      assertThat(log).as("a build beside the live holder's").doesNotExist();
    } finally {
      launcher.destroyForcibly();
    }
  }

  /**
   * Regression: the wait for another's build (flock missing: macOS) looked at its lock once a
   * second in twenty naps, each a {@code sleep 0.05} of its own, so it started twenty processes a
   * second for as long as that build ran, where one {@code sleep 1} had done. It sleeps the second
   * whole where there is a {@code sleep} (here a stand-in that notes what it is asked and sleeps a
   * moment), naps only where there is none.
   */
  @Test
  void theWaitForAnotherBuild_sleepsASecondAtATime_whereThereIsASleep() throws Exception {
    // A build that runs no sleep of its own.
    Path log = launcherNeedingABuildThat("true");
    Path lock = Files.createDirectories(root.resolve("mesh-cli/target/.mesh-build.lock.d"));
    Files.writeString(
        lock.resolve("pid"), ProcessHandle.current().pid() + "\n", StandardCharsets.UTF_8);
    Path bin = Files.createDirectories(root.resolve("sleep-bin"));
    Path slept = root.resolve("slept");
    executable(
        bin.resolve("sleep"),
        "echo \"$*\" >> '" + slept + "'",
        "exec '" + onPath("sleep") + "' 0.01");
    Process launcher =
        launcher(root.resolve("out.txt"), Map.of("PATH", bin + ":" + System.getenv("PATH")));
    try {
      awaitThat(
          () -> !launcher.isAlive() || Files.exists(slept),
          "the launcher waits, sleeping, or ends");
      assertThat(Files.readString(root.resolve("out.txt")))
          .contains("mesh: waiting for another build of mesh-cli to finish (process ");
      // Its holder ends: the lock is then taken over.
      Files.writeString(lock.resolve("pid"), deadPid() + "\n", StandardCharsets.UTF_8);
      assertThat(launcher.waitFor(30, TimeUnit.SECONDS)).as("the launcher ends").isTrue();
    } finally {
      launcher.destroyForcibly();
    }

    assertThat(Files.readAllLines(slept)).as("what sleep was asked").containsOnly("1");
    assertThat(Files.readAllLines(log)).containsExactly("start", "end");
  }

  /**
   * Regression: a launcher whose fresh lock was moved away before it wrote its id into it (by a
   * waiter of the launchers before the claim guard, taking a dead owner's lock over) ended under
   * {@code set -e} with bash's "No such file or directory" on {@code .mesh-build.lock.d/pid}, and
   * built nothing. A failed write of the id now gives the claim up and claims again. A stand-in
   * {@code mkdir} moves the first lock it makes away at once.
   */
  @Test
  void aLockMovedAwayBeforeItsIdIsWritten_isClaimedAgain_notTheLaunchersEnd() throws Exception {
    Path log = launcherNeedingABuild("0");
    Path bin = Files.createDirectories(root.resolve("moving-bin"));
    Path moved = root.resolve("moved-once");
    String realMkdir = onPath("mkdir");
    executable(
        bin.resolve("mkdir"),
        "case \"${1:-}\" in */.mesh-build.lock.d)",
        "  if [ ! -e '" + moved + "' ]; then",
        "    '" + realMkdir + "' \"$1\" || exit 1",
        "    touch '" + moved + "'",
        "    '" + onPath("mv") + "' \"$1\" \"$1." + deadPid() + "\"",
        "    exit 0",
        "  fi ;;",
        "esac",
        "exec '" + realMkdir + "' \"$@\"");

    Process launcher =
        launcher(root.resolve("out.txt"), Map.of("PATH", bin + ":" + System.getenv("PATH")));

    assertThat(launcher.waitFor(15, TimeUnit.SECONDS)).as("the launcher ends").isTrue();
    assertThat(moved).exists();
    assertThat(Files.readString(root.resolve("out.txt"))).doesNotContain("No such file");
    assertThat(launcher.exitValue()).as(Files.readString(root.resolve("out.txt"))).isZero();
    assertThat(Files.readAllLines(log)).containsExactly("start", "end");
  }

  /**
   * Regression: a waiter that found the lock's owner dead renamed the lock away to check it; where
   * another waiter had taken the dead lock over first, it had moved that waiter's live lock, and
   * where a third launcher claimed in the gap before the put-back, the live lock was removed and
   * two builds ran at once. Three launchers are driven into that gap: the stand-in {@code cat}
   * holds the two waiters' reads as above, and a stand-in {@code mv} starts the third launcher
   * right after a waiter moves a live lock away and returns once it has claimed. The lock is now
   * taken over under the claim guard, without being moved (the stand-ins then stand aside), and the
   * build runs once. Slow: the waiters wait out a build at the launcher's one-second pace.
   */
  @Test
  @Tag("slow")
  void aThirdLauncherClaimingDuringATakeover_doesNotBuildBesideTheLiveLock() throws Exception {
    Path log = launcherNeedingABuild("2");
    Path lock = Files.createDirectories(root.resolve("mesh-cli/target/.mesh-build.lock.d"));
    Files.writeString(lock.resolve("pid"), deadPid() + "\n", StandardCharsets.UTF_8);
    Path bin = holdingCat();
    Path moves = root.resolve("lock-moves");
    Path third = root.resolve("third-launcher");
    executable(
        bin.resolve("mv"),
        "src=\"${@: -2:1}\"",
        "'" + onPath("mv") + "' \"$@\" || exit $?",
        "case \"$src\" in */.mesh-build.lock.d)",
        "  echo \"$src\" >> '" + moves + "'",
        "  if [ \"$('" + REAL_CAT + "' '" + moves + "' | wc -l)\" -eq 2 ]; then",
        "    bash '" + root.resolve("mesh") + "' --version > '" + third + ".out' 2>&1 &",
        "    echo $! > '" + third + "'",
        "    for i in $(seq 200); do [ -d \"$src\" ] && break; sleep 0.02; done",
        "  fi ;;",
        "esac");
    Map<String, String> env = Map.of("PATH", bin + ":" + System.getenv("PATH"));
    List<Process> waiters = new ArrayList<>();
    for (int i = 0; i < 2; i++) {
      waiters.add(launcher(root.resolve("out-" + i + ".txt"), env));
    }
    for (Process p : waiters) {
      assertThat(p.waitFor(60, TimeUnit.SECONDS)).as("the launcher ends").isTrue();
    }
    if (Files.exists(third)) {
      long pid = Long.parseLong(Files.readString(third).strip());
      ProcessHandle.of(pid).ifPresent(h -> h.onExit().join());
    }

    assertThat(Files.readAllLines(log)).containsExactly("start", "end");
  }

  /**
   * Regression: the launcher gave its claim guard back by reading it and then removing it by name;
   * a guard another launcher took between the read and the removal was removed, and two launchers
   * held the guard. Stand-ins for {@code rm} and {@code mv} put another live holder's id into the
   * guard the first time either is handed it, as that launcher would have written it. The guard is
   * moved aside before it is read now, and another's is put back.
   */
  @Test
  void releasingTheClaimGuard_whenAnotherTookItAfterTheRead_leavesTheirs() throws Exception {
    Path log = launcherNeedingABuild("0");
    Path guard = root.resolve("mesh-cli/target/.mesh-build.claim");
    Path taken = root.resolve("taken");
    String other = Long.toString(ProcessHandle.current().pid()); // a holder that runs
    Path bin = Files.createDirectories(root.resolve("taking-bin"));
    for (String tool : List.of("rm", "mv")) {
      executable(
          bin.resolve(tool),
          "for a in \"$@\"; do",
          "  if [ \"$a\" = '" + guard + "' ] && [ ! -e '" + taken + "' ]; then",
          "    : > '" + taken + "'",
          "    printf '%s\\n' '" + other + "' > '" + guard + "'",
          "  fi",
          "done",
          "exec '" + onPath(tool) + "' \"$@\"");
    }

    buildsOnce(log, Map.of("PATH", bin + ":" + System.getenv("PATH")));

    assertThat(taken).as("the guard was handed to rm or mv").exists();
    assertThat(guard).as("the other launcher's guard").exists();
    assertThat(Files.readString(guard).strip()).isEqualTo(other);
  }

  /**
   * Regression: a claim guard grown huge (a gigabyte, a disk fault's or a stray write's) was read
   * whole by bash's {@code read}, a byte at a time: the launcher sat on it for minutes. Only its
   * first 200 bytes are read now: a guard naming no process that runs, taken over at once. The file
   * is sparse, so it costs no disk.
   */
  @Test
  void aHugeClaimGuard_isReadOnlyInPart_andTakenOver() throws Exception {
    Path log = launcherNeedingABuild("0");
    Path guard =
        Files.createDirectories(root.resolve("mesh-cli/target")).resolve(".mesh-build.claim");
    try (java.io.RandomAccessFile huge = new java.io.RandomAccessFile(guard.toFile(), "rw")) {
      huge.write("garbage".getBytes(StandardCharsets.US_ASCII));
      huge.setLength(1L << 30);
    }

    buildsOnce(log);

    assertThat(guard).doesNotExist();
  }

  /** Runs the launcher, and checks that it ends, having built once ({@code log}). */
  private void buildsOnce(Path log) throws Exception {
    buildsOnce(log, Map.of());
  }

  /** {@link #buildsOnce(Path)} with {@code env}. */
  private void buildsOnce(Path log, Map<String, String> env) throws Exception {
    Process launcher = launcher(root.resolve("out.txt"), env);

    boolean ended = launcher.waitFor(15, TimeUnit.SECONDS);
    if (!ended) {
      launcher.destroyForcibly(); // it waits on the lock for ever
    }

    assertThat(ended)
        .as("the launcher ends: %s", Files.readString(root.resolve("out.txt")))
        .isTrue();
    assertThat(Files.readAllLines(log)).containsExactly("start", "end");
  }

  /**
   * Starts the launcher copied into {@code root} ({@code mesh --version}) with a stand-in JDK 25,
   * so that no JVM starts after the build, and {@code env}.
   */
  private Process launcher(Path out, Map<String, String> env) throws java.io.IOException {
    Map<String, String> all = new java.util.HashMap<>(env);
    all.put("JAVA_HOME", LauncherCopy.standInJdk(root).toString());
    return LauncherCopy.start("bash", root, out, all, "--version");
  }

  /**
   * Regression: a waiter killed while it took a dead owner's lock over left that lock renamed
   * ({@code .mesh-build.lock.d.<its pid>}), and nothing ever removed it. The next build removes one
   * whose waiter is gone and keeps one whose waiter still runs.
   */
  @Test
  void aLockLeftRenamedByAKilledWaiter_isRemovedByTheNextBuild() throws Exception {
    Path log = launcherNeedingABuild("0");
    Path target = root.resolve("mesh-cli/target");
    Path left = Files.createDirectories(target.resolve(".mesh-build.lock.d." + deadPid()));
    Files.writeString(left.resolve("pid"), "1\n", StandardCharsets.UTF_8);
    long here = ProcessHandle.current().pid();
    Path inUse = Files.createDirectories(target.resolve(".mesh-build.lock.d." + here));

    Process launcher =
        LauncherCopy.start(
            "bash",
            root,
            root.resolve("out.txt"),
            Map.of("JAVA_HOME", System.getProperty("java.home")),
            "--version");

    assertThat(launcher.waitFor(60, TimeUnit.SECONDS)).as("the launcher ends").isTrue();
    assertThat(Files.readAllLines(log)).containsExactly("start", "end");
    assertThat(left).doesNotExist();
    assertThat(inUse).isDirectory();
  }

  /**
   * A folder of stand-ins, first on the launchers' {@code PATH}, whose {@code cat} holds the first
   * two reads of the lock's owner until both are made, and the second until the first waiter has
   * claimed the lock anew: both find the owner dead, and the second acts on that after the first
   * has taken over, the moment a takeover without the claim guard raced in. A read made under the
   * claim guard is not held: no other launcher can read, claim or remove the lock then, so there is
   * no interleaving to force (holding it would only wait out the stand-in's time limit).
   */
  private Path holdingCat() throws java.io.IOException {
    Path readers = root.resolve("readers");
    Path guard = root.resolve("mesh-cli/target/.mesh-build.claim");
    Path bin = Files.createDirectories(root.resolve("slow-bin"));
    executable(
        bin.resolve("cat"),
        "case \"${1:-}\" in */.mesh-build.lock.d/pid)",
        "  [ -e '" + guard + "' ] && exec '" + REAL_CAT + "' \"$@\"",
        "  mkdir -p '" + readers + "'",
        "  if [ \"$(ls '" + readers + "' | wc -l)\" -lt 2 ]; then",
        "    content=\"$('" + REAL_CAT + "' \"$@\")\" || exit 1",
        "    touch '" + readers + "'/$$",
        "    n=\"$(ls '" + readers + "' | wc -l)\"",
        "    for i in $(seq 200); do",
        "      [ \"$(ls '" + readers + "' | wc -l)\" -ge 2 ] && break; sleep 0.02",
        "    done",
        "    if [ \"$n\" -ge 2 ]; then",
        "      for i in $(seq 200); do",
        "        now=\"$('" + REAL_CAT + "' \"$1\" 2>/dev/null)\" || now=''",
        "        [ -z \"$now\" ] || [ \"$now\" = \"$content\" ] || break; sleep 0.02",
        "      done",
        "    fi",
        "    printf '%s\\n' \"$content\"",
        "    exit 0",
        "  fi ;;",
        "esac",
        "exec '" + REAL_CAT + "' \"$@\"");
    return bin;
  }

  /** {@code tool}'s file on this process's {@code PATH}. */
  private static String onPath(String tool) {
    return Stream.of(System.getenv("PATH").split(":"))
        .map(d -> Path.of(d, tool))
        .filter(Files::isExecutable)
        .findFirst()
        .orElseThrow()
        .toString();
  }

  private static final String REAL_CAT = onPath("cat");

  /**
   * The launcher copied into {@code root} with the folder lock, a source newer than any build, and
   * a stand-in Maven wrapper whose build takes {@code seconds} and logs its start and end (and an
   * overlap with another) into the returned file.
   */
  private Path launcherNeedingABuild(String seconds) throws java.io.IOException {
    return launcherNeedingABuildThat("sleep " + seconds);
  }

  /**
   * {@link #launcherNeedingABuild(String)} with a stand-in build that runs {@code whileBuilding} (a
   * line of bash) between its start and its end.
   */
  private Path launcherNeedingABuildThat(String whileBuilding) throws java.io.IOException {
    String launcher =
        Files.readString(Path.of("..", "mesh").toAbsolutePath().normalize())
            .replace("command -v flock", "command -v flock-missing-here");
    assertThat(launcher).contains("flock-missing-here");
    Files.writeString(root.resolve("mesh"), launcher, StandardCharsets.UTF_8);
    Path log = root.resolve("builds.log");
    executable(
        root.resolve("mvnw"),
        "log='" + log + "'",
        "echo start >> \"$log\"",
        "mkdir \"$log.building\" 2>/dev/null || echo overlap >> \"$log\"",
        whileBuilding,
        "mkdir -p mesh-cli/target/lib && touch mesh-cli/target/mesh-cli.jar",
        "rmdir \"$log.building\" 2>/dev/null",
        "echo end >> \"$log\"");
    Files.createDirectories(root.resolve("mesh-cli/src/main/java"));
    Files.writeString(root.resolve("mesh-cli/src/main/java/Source.java"), "class Source {}\n");
    return log;
  }

  /**
   * Starts a launcher needing a build whose stand-in {@code mkdir} kills it (SIGKILL) right after
   * making the lock, inside the claim guard, and waits for it to end; returns the build log.
   */
  private Path killedInsideTheClaimGuard() throws Exception {
    Path log = launcherNeedingABuild("0");
    Path killed = root.resolve("killed");
    Path bin = mkdirThatThen("kill -KILL $PPID", killed);
    Process doomed =
        launcher(root.resolve("out-killed.txt"), Map.of("PATH", bin + ":" + System.getenv("PATH")));
    assertThat(doomed.waitFor(30, TimeUnit.SECONDS)).as("the killed launcher ends").isTrue();
    assertThat(killed).exists();
    assertThat(root.resolve("mesh-cli/target/.mesh-build.lock.d")).isDirectory();
    return log;
  }

  /**
   * A folder of stand-ins, for the launchers' {@code PATH}, whose {@code mkdir} makes the lock
   * once, marks {@code done}, then runs {@code action} (bash, with {@code $PPID} its launcher,
   * which waits for this {@code mkdir} to end meanwhile); every other use is the real {@code
   * mkdir}'s.
   */
  private Path mkdirThatThen(String action, Path done) throws java.io.IOException {
    Path bin = Files.createDirectories(root.resolve("acting-bin"));
    String realMkdir = onPath("mkdir");
    executable(
        bin.resolve("mkdir"),
        "case \"${1:-}\" in */.mesh-build.lock.d)",
        "  if [ ! -e '" + done + "' ]; then",
        "    '" + realMkdir + "' \"$1\" || exit 1",
        "    touch '" + done + "'",
        "    " + action,
        "    exit 0",
        "  fi ;;",
        "esac",
        "exec '" + realMkdir + "' \"$@\"");
    return bin;
  }

  /**
   * Dates the claim guard (whatever its form: a file, or the folder it once was) at {@code when}.
   */
  private void dateClaimGuards(Instant when) throws java.io.IOException {
    try (Stream<Path> entries = Files.list(root.resolve("mesh-cli/target"))) {
      for (Path p : entries.toList()) {
        if (p.getFileName().toString().startsWith(".mesh-build.claim")) {
          Files.setLastModifiedTime(p, FileTime.from(when));
        }
      }
    }
  }

  /** Waits until {@code condition} holds, at most 10 s, failing with {@code what} after that. */
  private static void awaitThat(Callable<Boolean> condition, String what) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (!condition.call()) {
      assertThat(System.nanoTime()).as(what).isLessThan(deadline);
      Thread.sleep(10);
    }
  }

  /** Sends {@code signal} ({@code -CONT}) to process {@code pid}. */
  private static void signal(String signal, long pid) throws Exception {
    new ProcessBuilder("kill", signal, Long.toString(pid)).start().waitFor(10, TimeUnit.SECONDS);
  }

  /** The id of a process that has ended. */
  private static long deadPid() throws Exception {
    Process dead = new ProcessBuilder("true").start();
    assertThat(dead.waitFor(10, TimeUnit.SECONDS)).isTrue();
    return dead.pid();
  }

  private static void executable(Path file, String... lines) throws java.io.IOException {
    Files.writeString(
        file, "#!/usr/bin/env bash\n" + String.join("\n", lines) + "\n", StandardCharsets.UTF_8);
    assertThat(file.toFile().setExecutable(true)).isTrue();
  }
}
