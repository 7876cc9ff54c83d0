package org.meshjava.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The checkout's {@code ./mesh} launcher copied into a folder of a test's own, so that what it runs
 * ({@code mvnw}, a JDK) can be stand-ins there, run by bash in that folder.
 */
final class LauncherCopy {
  private LauncherCopy() {}

  /** What a run printed (stdout and stderr together) and its exit status. */
  record Ran(int code, String out) {}

  /**
   * Runs {@code mesh args} from {@code root}, copying the launcher there first, with {@code env}.
   */
  static Ran run(Path root, Map<String, String> env, String... args)
      throws IOException, InterruptedException {
    Path launcher = root.resolve("mesh");
    if (!Files.exists(launcher)) {
      Files.copy(Path.of("..", "mesh").toAbsolutePath().normalize(), launcher);
    }
    String[] command = new String[args.length + 2];
    command[0] = "bash";
    command[1] = launcher.toString();
    System.arraycopy(args, 0, command, 2, args.length);
    Path out = root.resolve("out.txt");
    ProcessBuilder pb =
        new ProcessBuilder(command)
            .directory(root.toFile())
            .redirectErrorStream(true)
            .redirectOutput(out.toFile());
    pb.environment().putAll(env);
    Process p = pb.start();
    assertThat(p.waitFor(60, TimeUnit.SECONDS)).as("the launcher ends").isTrue();
    return new Ran(p.exitValue(), Files.readString(out));
  }

  /**
   * The arguments the launcher in {@code root} starts {@code java} with for {@code mesh args}, with
   * {@code env}: run against a stand-in JDK 25 in {@code root/jdk} whose {@code java} writes them
   * down, and without building ({@code MESH_NO_BUILD}).
   */
  static List<String> javaArguments(Path root, Map<String, String> env, String... args)
      throws IOException, InterruptedException {
    Path jdk = root.resolve("jdk");
    Path noted = root.resolve("java-args");
    if (!Files.exists(jdk)) {
      Files.createDirectories(jdk.resolve("bin"));
      Files.writeString(jdk.resolve("release"), "JAVA_VERSION=\"25\"\n", StandardCharsets.UTF_8);
      for (String tool : List.of("java", "javac")) {
        Path p = jdk.resolve("bin").resolve(tool);
        Files.writeString(
            p,
            "#!/usr/bin/env bash\nprintf '%s\\n' \"$@\" > '" + noted + "'\n",
            StandardCharsets.UTF_8);
        assertThat(p.toFile().setExecutable(true)).isTrue();
      }
    }
    Map<String, String> all = new HashMap<>(env);
    all.putAll(Map.of("JAVA_HOME", jdk.toString(), "MESH_NO_BUILD", "1"));
    Ran ran = run(root, all, args);
    assertThat(ran.code()).as(ran.out()).isZero();
    return Files.readAllLines(noted);
  }
}
