package org.meshjava.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The Maven wrapper run without HOME (a service manager's unit without a user, {@code env -i})
 * takes Maven's user folder from the user's home in the password database, where the JVM takes
 * {@code user.home} from, as {@code ./mesh} already found its JDK without HOME and then built with
 * this wrapper. The checkout's {@code mvnw} is copied beside a wrapper setting that names no Maven
 * there is, so the run ends at the wrapper's own refusal of that setting, without a download.
 */
class MavenWrapperWithoutHomeTest {
  @TempDir Path root;

  /** Regression: "mvnw: 145: HOME: parameter not set", exit 2, before Maven was looked for. */
  @Test
  void withoutHome_mavensFolderIsInTheUsersHome() throws Exception {
    WrapperCopy.into(root);
    Path out = root.resolve("out.txt");
    ProcessBuilder pb =
        new ProcessBuilder("sh", root.resolve("mvnw").toString(), "-v")
            .directory(root.toFile())
            .redirectErrorStream(true)
            .redirectOutput(out.toFile());
    pb.environment().remove("HOME");
    pb.environment().remove("MAVEN_USER_HOME");
    pb.environment().put("MVNW_VERBOSE", "true");
    Process p = pb.start();
    assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
    String said = Files.readString(out);
    assertThat(said).doesNotContain("parameter not set");
    // The password database decides, not the JVM's user.home (which falls back to HOME where the
    // user has no entry, as in a container started with a bare --user 1234): with a home folder
    // there the wrapper goes on from it; without one it refuses in its own words.
    Optional<Path> home = passwordDatabaseHome();
    if (home.isPresent()) {
      assertThat(said)
          .contains("HOME is not set: using " + home.get().resolve(".m2"))
          .contains("distributionUrl is not valid");
    } else {
      assertThat(said)
          .contains("HOME is not set, and no home folder is known for user")
          .doesNotContain("distributionUrl");
      assertThat(p.exitValue()).isNotZero();
    }
  }

  /** This user's home folder in the password database, where it names an existing folder. */
  private static Optional<Path> passwordDatabaseHome() throws Exception {
    Process id =
        new ProcessBuilder("sh", "-c", "getent passwd \"$(id -u)\"")
            .redirectError(ProcessBuilder.Redirect.DISCARD)
            .start();
    String entry = new String(id.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
    assertThat(id.waitFor(10, TimeUnit.SECONDS)).isTrue();
    String[] fields = entry.split(":", -1);
    if (id.exitValue() != 0 || fields.length < 7 || fields[5].isEmpty()) {
      return Optional.empty();
    }
    Path home = Path.of(fields[5]);
    return Files.isDirectory(home) ? Optional.of(home) : Optional.empty();
  }
}
