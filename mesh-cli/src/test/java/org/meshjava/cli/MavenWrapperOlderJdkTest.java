package org.meshjava.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The Maven wrapper run on a JDK older than 25 refuses in one line that names the JDK and asks for
 * a JDK 25. Regression: {@code ./mvnw install} on JDK 17, as the README's "Embedding it" asks a
 * user to run, died with the JVM's "Unrecognized option: --sun-misc-unsafe-memory-access=allow"
 * (from {@code .mvn/jvm.config}) and never said which JDK was wanted. The JDKs are stand-ins (a
 * release file and a {@code java} that does nothing), and the wrapper setting names no Maven there
 * is, so a JDK that passes ends at the wrapper's own refusal of that setting, without a download.
 */
class MavenWrapperOlderJdkTest {
  @TempDir static Path root;

  @BeforeAll
  static void copyTheWrapper() throws Exception {
    WrapperCopy.into(root);
  }

  @Test
  void aJdk17_isRefusedInOneLineAskingForAJdk25() throws Exception {
    Path jdk = standInJdk("jdk-17", "17.0.12");
    assertThat(run(jdk))
        .isEqualTo(
            "mvnw: this build needs a JDK 25, and the JDK at "
                + jdk
                + " is version 17.0.12: set JAVA_HOME to a JDK 25 (./mesh finds one by itself)\n");
  }

  @Test
  void aJdk25_goesOnToMaven() throws Exception {
    assertThat(run(standInJdk("jdk-25", "25.0.3")))
        .doesNotContain("needs a JDK 25")
        .contains("distributionUrl is not valid");
  }

  /** The wrapper's words for {@code mvnw -v} with {@code JAVA_HOME} at {@code jdk}. */
  private static String run(Path jdk) throws Exception {
    Path out = root.resolve(jdk.getFileName() + ".out");
    ProcessBuilder pb =
        new ProcessBuilder("sh", root.resolve("mvnw").toString(), "-v")
            .directory(root.toFile())
            .redirectErrorStream(true)
            .redirectOutput(out.toFile());
    pb.environment().put("JAVA_HOME", jdk.toString());
    pb.environment().put("MAVEN_USER_HOME", root.resolve("m2").toString());
    Process p = pb.start();
    assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
    assertThat(p.exitValue()).isEqualTo(1);
    return Files.readString(out);
  }

  /** A folder with a JDK's release file for {@code version}, and a java and javac doing nothing. */
  private static Path standInJdk(String name, String version) throws Exception {
    Path jdk = Files.createDirectories(root.toRealPath().resolve(name).resolve("bin")).getParent();
    for (String tool : new String[] {"java", "javac"}) {
      Path t = Files.writeString(jdk.resolve("bin").resolve(tool), "#!/bin/sh\nexit 0\n");
      Files.setPosixFilePermissions(t, PosixFilePermissions.fromString("rwxr-xr-x"));
    }
    Files.writeString(jdk.resolve("release"), "JAVA_VERSION=\"" + version + "\"\n");
    return jdk;
  }
}
