package org.meshjava.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
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
    Files.copy(Path.of("..", "mvnw").toAbsolutePath().normalize(), root.resolve("mvnw"));
    Files.createDirectories(root.resolve(".mvn/wrapper"));
    Files.writeString(
        root.resolve(".mvn/wrapper/maven-wrapper.properties"),
        "distributionUrl=https://example.invalid/org/apache/maven/mesh-test/no-maven.txt\n",
        StandardCharsets.UTF_8);
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
    assertThat(said)
        .doesNotContain("parameter not set")
        .contains("HOME is not set: using " + Path.of(System.getProperty("user.home"), ".m2"))
        .contains("distributionUrl is not valid");
  }
}
