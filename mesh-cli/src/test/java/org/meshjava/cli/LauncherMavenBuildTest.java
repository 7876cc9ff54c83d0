package org.meshjava.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Regression: {@code ./mesh demo} right after the README's {@code ./mesh test} built mesh-cli again
 * (minutes on a small machine), because the launcher trusted only builds it had run itself, and the
 * test run's Maven build of the same jar left no stamp it read. A Maven build of mesh-cli now
 * writes when it started and where our modules' jars came from; the launcher takes that build as
 * its own when those jars came from this tree, and still builds when a source changed after that
 * start or when the jars came from a local repository. The build here is a stand-in {@code mvnw},
 * and the files it writes are the ones mesh-cli's pom writes (what the pom really writes is checked
 * by {@code LauncherModulePathTest}).
 */
class LauncherMavenBuildTest {
  private static final Instant MAVEN_STARTED =
      Instant.now().minus(Duration.ofMinutes(10)).truncatedTo(ChronoUnit.SECONDS);

  @TempDir Path root;
  private Path source;

  @BeforeEach
  void aTreeThatMavenPackaged() throws IOException {
    Files.writeString(
        root.resolve("mvnw"),
        "#!/usr/bin/env bash\nmkdir -p mesh-cli/target/lib && touch mesh-cli/target/mesh-cli.jar\n",
        StandardCharsets.UTF_8);
    assertThat(root.resolve("mvnw").toFile().setExecutable(true)).isTrue();
    source = root.resolve("mesh-core/src/main/java/Source.java");
    Files.createDirectories(source.getParent());
    Files.writeString(source, "class Source {}\n");
    touch(source, MAVEN_STARTED.minus(Duration.ofHours(1)));
    // The launcher looks at src/main's folders too (a deleted file shows only there).
    touch(source.getParent(), MAVEN_STARTED.minus(Duration.ofHours(1)));
    touch(source.getParent().getParent(), MAVEN_STARTED.minus(Duration.ofHours(1)));
    Path target = root.resolve("mesh-cli/target");
    Files.createDirectories(target.resolve("lib"));
    Files.writeString(target.resolve("mesh-cli.jar"), "");
    Files.writeString(target.resolve("mesh-build-started"), MAVEN_STARTED + "\n");
  }

  private static void touch(Path p, Instant at) throws IOException {
    Files.setLastModifiedTime(p, FileTime.from(at));
  }

  private void classpath(String... entries) throws IOException {
    Files.writeString(
        root.resolve("mesh-cli/target/mesh-build-classpath"), String.join(":", entries) + "\n");
  }

  /**
   * What {@code mesh --version} printed; the stand-in jar is empty, so only the launcher's words
   * count.
   */
  private String run() throws IOException, InterruptedException {
    // An empty MESH_NO_BUILD builds, whatever the shell running the tests exported.
    return LauncherCopy.run(
            root,
            Map.of("JAVA_HOME", System.getProperty("java.home"), "MESH_NO_BUILD", ""),
            "--version")
        .out();
  }

  @Test
  void aMavenBuildOfThisTree_isNotBuiltAgain() throws Exception {
    classpath(
        root.resolve("mesh-steward/target/mesh-steward-0.1.0-SNAPSHOT.jar").toString(),
        root.resolve("mesh-core/target/classes").toString());

    assertThat(run()).doesNotContain("building");
    assertThat(run()).as("a second run").doesNotContain("building");
  }

  /**
   * Regression: the launcher dated its stamp with {@code touch -d 2026-…Z}, a form of GNU's: where
   * touch takes only POSIX's options (BusyBox reads no trailing Z, and a local time) the Maven
   * build was not adopted, and every command built again. The stamp is dated with POSIX {@code
   * touch -t} read in UTC, whatever the caller's time zone.
   */
  @Test
  void aMavenBuildOfThisTree_isAdopted_whereTouchTakesOnlyPosixOptions() throws Exception {
    classpath(root.resolve("mesh-core/target/classes").toString());
    Path bin = Files.createDirectories(root.resolve("posix-bin"));
    Path touch = bin.resolve("touch");
    Files.writeString(
        touch,
        "#!/usr/bin/env bash\n"
            + "for a in \"$@\"; do case \"$a\" in -d*) echo \"touch: no option $a\" >&2; exit 1;;"
            + " esac; done\n"
            + "for d in /usr/bin /bin; do [ -x \"$d/touch\" ] && exec \"$d/touch\" \"$@\"; done\n"
            + "exit 1\n",
        StandardCharsets.UTF_8);
    assertThat(touch.toFile().setExecutable(true)).isTrue();

    String out =
        LauncherCopy.run(
                root,
                Map.of(
                    "JAVA_HOME",
                    System.getProperty("java.home"),
                    "MESH_NO_BUILD",
                    "",
                    "TZ",
                    "XXX+12",
                    "PATH",
                    bin + ":" + System.getenv("PATH")),
                "--version")
            .out();

    assertThat(out).doesNotContain("building").doesNotContain("touch:");
    assertThat(Files.getLastModifiedTime(root.resolve("mesh-cli/target/.mesh-launcher-build")))
        .isEqualTo(FileTime.from(MAVEN_STARTED));
  }

  @Test
  void aSourceChangedAfterTheMavenBuildStarted_isBuilt() throws Exception {
    classpath(root.resolve("mesh-core/target/mesh-core-0.1.0-SNAPSHOT.jar").toString());
    // Changed while that build ran: after its start, before the jar was written.
    touch(source, MAVEN_STARTED.plusSeconds(5));

    assertThat(run()).contains("mesh: building mesh-cli");
    assertThat(run()).as("after the launcher's own build").doesNotContain("building");
  }

  /**
   * Regression: a build stopped part way (Ctrl-C while Maven ran) left its start file, {@code
   * .mesh-build.XXXXXX}, in mesh-cli/target for good, one more with every stopped build. The next
   * build, holding the build lock, removes such files and keeps only the lock.
   */
  @Test
  void aStoppedBuildsStartFile_isRemovedByTheNextBuild() throws Exception {
    classpath(root.resolve("mesh-core/target/mesh-core-0.1.0-SNAPSHOT.jar").toString());
    Path target = root.resolve("mesh-cli/target");
    Path leftover = Files.writeString(target.resolve(".mesh-build.Ab12Cd"), "");
    touch(source, MAVEN_STARTED.plusSeconds(5));

    assertThat(run()).contains("mesh: building mesh-cli");

    assertThat(leftover).doesNotExist();
    try (var names = Files.list(target)) {
      assertThat(names.map(p -> p.getFileName().toString()))
          .filteredOn(n -> n.startsWith(".mesh-build."))
          .containsExactly(".mesh-build.lock");
    }
  }

  @Test
  void aMavenBuildAgainstALocalRepositorysJars_isBuilt() throws Exception {
    classpath(
        root.resolve("mesh-steward/target/mesh-steward-0.1.0-SNAPSHOT.jar").toString(),
        "/home/u/.m2/repository/org/meshjava/mesh-core/0.1.0-SNAPSHOT/mesh-core-0.1.0-SNAPSHOT.jar");

    assertThat(run()).contains("mesh: building mesh-cli");
  }

  @Test
  void aMavenBuildAfterTheLaunchersOwn_isTakenAsTheNewerOne() throws Exception {
    classpath(root.resolve("mesh-core/target/classes").toString());
    assertThat(run()).doesNotContain("building");
    // A later Maven build, after a source changed, packages again and says when it started.
    Instant later = Instant.now().minusSeconds(60).truncatedTo(ChronoUnit.SECONDS);
    touch(source, later.minusSeconds(30));
    Files.writeString(root.resolve("mesh-cli/target/mesh-build-started"), later + "\n");

    assertThat(run()).doesNotContain("building");
  }
}
