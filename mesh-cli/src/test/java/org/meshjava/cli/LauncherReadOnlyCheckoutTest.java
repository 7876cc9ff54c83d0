package org.meshjava.cli;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A checkout this user cannot write (another user's, or one mounted read-only): a build Maven made
 * there runs, and one that is missing or out of date is refused in one line saying what is needed.
 * Run as user nobody through setpriv where the tests run as root (whom no permission stops), else
 * as this user with mesh-cli's folders made read-only.
 */
class LauncherReadOnlyCheckoutTest {
  @TempDir Path root;

  @AfterEach
  void writableAgain() throws IOException {
    for (Path p : new Path[] {root.resolve("mesh-cli/target"), root.resolve("mesh-cli")}) {
      if (Files.exists(p)) {
        Files.setPosixFilePermissions(p, PosixFilePermissions.fromString("rwxr-xr-x"));
      }
    }
  }

  /**
   * Regression: the launcher took Maven's build for its own by writing its stamp beside it, and
   * where it could not, removed Maven's file instead, which stopped it with "rm: cannot remove
   * '…/mesh-cli/target/mesh-build-started': Permission denied".
   */
  @Test
  void aBuildMavenMadeThere_runs() throws Exception {
    Path target = mavenBuildStartedAnHourAgo();
    Path jdk = LauncherCopy.standInJdk(root);
    readOnly(target.getParent());

    LauncherCopy.Ran ran = asAnotherUser(Map.of("JAVA_HOME", jdk.toString()), "key", "show");

    assertThat(ran.code()).as(ran.out()).isZero();
    assertThat(ran.out()).isEmpty();
    assertThat(Files.readAllLines(root.resolve("java-args"))).endsWith("key", "show");
  }

  /**
   * Regression: sources were measured against the time Maven's file was written (when its build
   * ended), so one edited while that build ran counted as older and the build ran without a word.
   * They are measured against the start the file holds: such a build is refused as out of date.
   */
  @Test
  void aSourceEditedWhileMavensBuildRan_isRefusedAsOutOfDate() throws Exception {
    Path target = mavenBuildStartedAnHourAgo();
    Path source =
        Files.writeString(
            Files.createDirectories(root.resolve("mesh-core/src/main/java")).resolve("Edited.java"),
            "class Edited {}\n");
    Files.setLastModifiedTime(source, FileTime.from(Instant.now().minus(30, ChronoUnit.MINUTES)));
    Path jdk = LauncherCopy.standInJdk(root);
    readOnly(target.getParent());

    LauncherCopy.Ran ran =
        asAnotherUser(Map.of("JAVA_HOME", jdk.toString(), "MESH_NO_BUILD", ""), "key", "show");

    assertThat(ran.code()).as(ran.out()).isEqualTo(1);
    assertThat(ran.out()).startsWith("mesh: mesh-cli needs a build (none yet, or a source changed");
    assertThat(root.resolve("java-args")).doesNotExist();
  }

  /**
   * Regression: where no file could be made in the temporary folder to measure sources against (an
   * unwritable or missing TMPDIR), the build counted as out of date, and the refusal said "a source
   * changed since the last", which none had. It says what stops the check.
   */
  @Test
  void anUnwritableTemporaryFolder_isSaid_notCalledASourceChange() throws Exception {
    Path target = mavenBuildStartedAnHourAgo();
    Path jdk = LauncherCopy.standInJdk(root);
    readOnly(target.getParent());
    Path missing = root.resolve("no-tmp");

    LauncherCopy.Ran ran =
        asAnotherUser(
            Map.of("JAVA_HOME", jdk.toString(), "MESH_NO_BUILD", "", "TMPDIR", missing.toString()),
            "key",
            "show");

    assertThat(ran.code()).as(ran.out()).isEqualTo(1);
    assertThat(ran.out())
        .isEqualTo(
            "mesh: cannot tell whether mesh-cli's build in this checkout is up to date: no file"
                + " can be made in the temporary folder "
                + missing
                + " to measure its sources against: set TMPDIR to a folder this user can write, or"
                + " run the last build as it is with MESH_NO_BUILD=1\n");
    assertThat(root.resolve("java-args")).doesNotExist();
  }

  /**
   * Regression: the file the check makes in the temporary folder had no trap, so a stop by signal
   * while the sources were looked through (a large tree, a slow disk) left it there, empty, one
   * more on every such stop. Here the look ({@code find}) waits until the launcher is told to stop.
   */
  @Test
  void aStopWhileTheSourcesAreLookedThrough_leavesNoFileInTheTemporaryFolder() throws Exception {
    Path target = mavenBuildStartedAnHourAgo();
    Path jdk = LauncherCopy.standInJdk(root);
    Path looking = root.resolve("looking");
    Path find = jdk.resolve("bin/find");
    Files.writeString(
        find, "#!/usr/bin/env bash\necho $$ > '" + looking + "'\nexec sleep 30\n", UTF_8);
    Files.setPosixFilePermissions(find, PosixFilePermissions.fromString("rwxr-xr-x"));
    readOnly(target.getParent());
    Path tmp = Files.createDirectories(root.resolve("tmp"));
    Files.setPosixFilePermissions(tmp, PosixFilePermissions.fromString("rwxrwxrwx"));
    Files.copy(Path.of("..", "mesh").toAbsolutePath().normalize(), root.resolve("mesh"));
    ProcessBuilder pb =
        new ProcessBuilder(shell(), root.resolve("mesh").toString(), "key", "show")
            .directory(root.toFile())
            .redirectErrorStream(true)
            .redirectOutput(root.resolve("out.txt").toFile());
    pb.environment().clear();
    pb.environment()
        .putAll(
            LauncherCopy.environment(
                System.getenv(),
                Map.of(
                    "JAVA_HOME", jdk.toString(), "MESH_NO_BUILD", "", "TMPDIR", tmp.toString())));
    Process launcher = pb.start();
    try {
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
      while (!Files.exists(looking) || Files.readString(looking).isBlank()) {
        assertThat(launcher.isAlive()).as("the launcher runs").isTrue();
        assertThat(System.nanoTime()).as("the launcher looks").isLessThan(deadline);
        Thread.sleep(5);
      }
      assertThat(tmp.toFile().list()).as("the check's file, while it looks").hasSize(1);
      signal(Long.toString(launcher.pid()));
      // The look ends as a Ctrl-C would end it (the whole foreground group gets the signal).
      signal(Files.readString(looking).strip());
      assertThat(launcher.waitFor(30, TimeUnit.SECONDS)).as("the launcher stops").isTrue();
    } finally {
      launcher.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
    }
    assertThat(launcher.exitValue()).isEqualTo(143);
    assertThat(tmp.toFile().list()).isEmpty();
  }

  private static void signal(String pid) throws Exception {
    assertThat(new ProcessBuilder("kill", "-TERM", pid).start().waitFor()).isZero();
  }

  /**
   * A Maven build of mesh-cli from this tree's modules, started an hour ago and ended now; returns
   * {@code mesh-cli/target/lib}.
   */
  private Path mavenBuildStartedAnHourAgo() throws IOException {
    Path target = Files.createDirectories(root.resolve("mesh-cli/target/lib"));
    Files.writeString(target.resolveSibling("mesh-cli.jar"), "");
    Files.writeString(
        target.resolveSibling("mesh-build-started"),
        Instant.now().minus(1, ChronoUnit.HOURS).truncatedTo(ChronoUnit.SECONDS) + "\n");
    Files.writeString(
        target.resolveSibling("mesh-build-classpath"),
        root.resolve("mesh-core/target/classes") + "\n");
    return target;
  }

  /**
   * Regression: a Maven build of mesh-cli alone (against a local repository's jars, not this
   * tree's) is not the launcher's; where the launcher could not drop its older stamp, the stamp
   * stayed and that build ran without a word. It is refused as a build this user cannot make.
   */
  @Test
  void aBuildMavenMadeFromOtherJars_isRefusedInOneLine() throws Exception {
    Path target = Files.createDirectories(root.resolve("mesh-cli/target/lib"));
    Files.writeString(target.resolveSibling("mesh-cli.jar"), "");
    Path stamp = Files.writeString(target.resolveSibling(".mesh-launcher-build"), "");
    Files.setLastModifiedTime(stamp, FileTime.from(Instant.now().minus(2, ChronoUnit.HOURS)));
    Files.writeString(
        target.resolveSibling("mesh-build-started"),
        Instant.now().minus(1, ChronoUnit.HOURS).truncatedTo(ChronoUnit.SECONDS) + "\n");
    Files.writeString(
        target.resolveSibling("mesh-build-classpath"),
        root.resolve("m2/org/meshjava/mesh-core/0.1.0-SNAPSHOT/mesh-core-0.1.0-SNAPSHOT.jar")
            + "\n");
    Path jdk = LauncherCopy.standInJdk(root);
    readOnly(target.getParent());

    LauncherCopy.Ran ran =
        asAnotherUser(Map.of("JAVA_HOME", jdk.toString(), "MESH_NO_BUILD", ""), "key", "show");

    assertThat(ran.code()).as(ran.out()).isEqualTo(1);
    assertThat(ran.out()).startsWith("mesh: mesh-cli needs a build").doesNotContain("rm:");
    assertThat(root.resolve("java-args")).doesNotExist();
  }

  /**
   * Regression: with no build yet, the launcher stopped with "mkdir: cannot create directory
   * '…/mesh-cli/target': Permission denied" and nothing saying what to do.
   */
  @Test
  void noBuildYet_isRefusedInOneLine_sayingWhatIsNeeded() throws Exception {
    LauncherCopy.unbuiltTreeWithStandInBuild(root);
    Path jdk = LauncherCopy.standInJdk(root);
    readOnly(root.resolve("mesh-cli"));

    LauncherCopy.Ran ran =
        asAnotherUser(Map.of("JAVA_HOME", jdk.toString(), "MESH_NO_BUILD", ""), "demo");

    assertThat(ran.code()).isEqualTo(1);
    assertThat(ran.out())
        .isEqualTo(
            "mesh: mesh-cli needs a build (none yet, or a source changed since the last), and"
                + " this user cannot write "
                + root.toRealPath().resolve("mesh-cli/target")
                + ": build it once as a user who can (./mesh --version), or run the last build"
                + " as it is with MESH_NO_BUILD=1\n");
  }

  /**
   * Regression: in a checkout whose mesh-cli/target this user may write (a shared, group-writable
   * one), a build lock left by another user (or read-only) stopped the launcher with bash's
   * "…/.mesh-build.lock: Permission denied". flock needs only to read the lock: the build runs.
   */
  @Test
  void aBuildLockThisUserCannotWrite_stillBuilds() throws Exception {
    LauncherCopy.unbuiltTreeWithStandInBuild(root);
    Files.setPosixFilePermissions(
        root.resolve("mvnw"), PosixFilePermissions.fromString("rwxr-xr-x"));
    Path jdk = LauncherCopy.standInJdk(root);
    assumeTrue(Files.isExecutable(Path.of("/usr/bin/flock")), "flock, whose lock this is");
    Path target = Files.createDirectories(root.resolve("mesh-cli/target"));
    Path lock = Files.writeString(target.resolve(".mesh-build.lock"), "");
    Files.setPosixFilePermissions(lock, PosixFilePermissions.fromString("r--r--r--"));
    readOnly(root.resolve("mesh-cli"));
    Files.setPosixFilePermissions(target, PosixFilePermissions.fromString("rwxrwxrwx"));

    LauncherCopy.Ran ran =
        asAnotherUser(Map.of("JAVA_HOME", jdk.toString(), "MESH_NO_BUILD", ""), "key", "show");

    assertThat(ran.code()).as(ran.out()).isZero();
    assertThat(ran.out()).doesNotContain("Permission denied").contains("mesh: building mesh-cli");
    assertThat(Files.readAllLines(root.resolve("java-args"))).endsWith("key", "show");
  }

  /**
   * Makes {@code dir} read-only, and the rest of the tree readable and the stand-in JDK runnable by
   * anyone (the test runs the launcher as nobody where it runs as root).
   */
  private void readOnly(Path dir) throws IOException {
    Files.setPosixFilePermissions(root, PosixFilePermissions.fromString("rwxrwxrwx"));
    for (String tool : new String[] {"java", "javac"}) {
      Files.setPosixFilePermissions(
          root.resolve("jdk/bin").resolve(tool), PosixFilePermissions.fromString("rwxr-xr-x"));
    }
    Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("r-xr-xr-x"));
  }

  /** {@code mesh args} run by a user who cannot write {@code mesh-cli}: nobody if this is root. */
  private LauncherCopy.Ran asAnotherUser(Map<String, String> env, String... args) throws Exception {
    return LauncherCopy.runBy(shell(), root, System.getenv(), env, args);
  }

  /** What runs the launcher as a user who cannot write {@code mesh-cli}: nobody if this is root. */
  private String shell() throws IOException {
    return LauncherCopy.shellOfAnotherUserWhereRoot(root);
  }
}
