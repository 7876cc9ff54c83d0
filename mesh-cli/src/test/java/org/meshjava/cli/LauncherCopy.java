package org.meshjava.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

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
   * The launcher's own settings, which a caller may have exported in the shell that runs the tests
   * ({@code MESH_JAVA_OPTS=-Xmx8g ./mesh test}, {@code MESH_NO_BUILD=1}): a launcher run by a test
   * has them only where the test gives them, so that no test depends on its caller's shell.
   */
  static final List<String> LAUNCHER_SETTINGS =
      List.of("MESH_JAVA_OPTS", "MESH_NO_BUILD", "MESH_JAVA_TIMEOUT_S", "MESH_CLAIM_GRACE_S");

  /** {@code inherited} without the launcher's own settings, then {@code given} over it. */
  static Map<String, String> environment(Map<String, String> inherited, Map<String, String> given) {
    Map<String, String> all = new HashMap<>(inherited);
    LAUNCHER_SETTINGS.forEach(all::remove);
    all.putAll(given);
    return all;
  }

  /**
   * Makes {@code root} a tree with one source that was never built, whose {@code mvnw} is a
   * stand-in that makes an empty jar: a test sees whether the launcher builds without a real Maven
   * build (the JVM it then starts fails on the empty jar; only the launcher's words count).
   */
  static void unbuiltTreeWithStandInBuild(Path root) throws IOException {
    Files.writeString(
        root.resolve("mvnw"),
        "#!/usr/bin/env bash\nmkdir -p mesh-cli/target/lib && touch mesh-cli/target/mesh-cli.jar\n",
        StandardCharsets.UTF_8);
    assertThat(root.resolve("mvnw").toFile().setExecutable(true)).isTrue();
    Files.createDirectories(root.resolve("mesh-cli/src/main/java"));
    Files.writeString(root.resolve("mesh-cli/src/main/java/Source.java"), "class Source {}\n");
  }

  /**
   * Copies the launcher into {@code root} with its {@code /usr/lib/jvm} search pointed at an empty
   * folder {@code root/jvm} (this host has JDKs there), so that a test decides which JDKs it finds.
   */
  static void copyWithoutSystemJdks(Path root) throws IOException {
    Path emptyJvms = Files.createDirectories(root.resolve("jvm"));
    String launcher =
        Files.readString(Path.of("..", "mesh").toAbsolutePath().normalize())
            .replace("/usr/lib/jvm/*", emptyJvms + "/*");
    Files.writeString(root.resolve("mesh"), launcher, StandardCharsets.UTF_8);
  }

  /**
   * A folder {@code root/bin} holding links to {@code tools} as found on this process's {@code
   * PATH}: a {@code PATH} of it alone finds those tools and no {@code java} but one a test adds.
   */
  static Path binOf(Path root, String... tools) throws IOException {
    Path bin = Files.createDirectories(root.resolve("bin"));
    for (String tool : tools) {
      Files.createSymbolicLink(bin.resolve(tool), onPath(tool));
    }
    return bin;
  }

  /** {@code tool}'s file on this process's {@code PATH}. */
  static Path onPath(String tool) {
    for (String dir : System.getenv("PATH").split(":")) {
      Path p = Path.of(dir, tool);
      if (Files.isExecutable(p)) {
        return p;
      }
    }
    throw new IllegalStateException(tool + " is not on PATH");
  }

  /**
   * Runs {@code mesh args} from {@code root}, copying the launcher there first, with {@code env}
   * over this process's environment.
   */
  static Ran run(Path root, Map<String, String> env, String... args)
      throws IOException, InterruptedException {
    return run(root, System.getenv(), env, args);
  }

  /**
   * Runs {@code mesh args} from {@code root}, copying the launcher there first, with {@code env}
   * over {@code inherited} (the environment the tests were started with, as a test states it).
   */
  static Ran run(Path root, Map<String, String> inherited, Map<String, String> env, String... args)
      throws IOException, InterruptedException {
    return runBy("bash", root, inherited, env, args);
  }

  /**
   * {@link #run(Path, Map, Map, String...)} with the launcher started by {@code shell} ({@code sh
   * ./mesh}) rather than by bash.
   */
  static Ran runBy(
      String shell,
      Path root,
      Map<String, String> inherited,
      Map<String, String> env,
      String... args)
      throws IOException, InterruptedException {
    Path launcher = root.resolve("mesh");
    if (!Files.exists(launcher)) {
      Files.copy(Path.of("..", "mesh").toAbsolutePath().normalize(), launcher);
    }
    Process p = started(shell, root, root.resolve("out.txt"), inherited, env, args);
    assertThat(p.waitFor(60, TimeUnit.SECONDS)).as("the launcher ends").isTrue();
    return new Ran(p.exitValue(), Files.readString(root.resolve("out.txt")));
  }

  /**
   * Starts {@code shell} on the launcher already in {@code root} ({@code mesh args}) from {@code
   * root}, its output (stdout and stderr together) into {@code out}, with {@code env} over this
   * process's environment, and returns at once: for a test that acts on the launcher while it runs.
   */
  static Process start(String shell, Path root, Path out, Map<String, String> env, String... args)
      throws IOException {
    return started(shell, root, out, System.getenv(), env, args);
  }

  private static Process started(
      String shell,
      Path root,
      Path out,
      Map<String, String> inherited,
      Map<String, String> env,
      String... args)
      throws IOException {
    List<String> command =
        new java.util.ArrayList<>(List.of(shell, root.resolve("mesh").toString()));
    command.addAll(List.of(args));
    ProcessBuilder pb =
        new ProcessBuilder(command)
            .directory(root.toFile())
            .redirectErrorStream(true)
            .redirectOutput(out.toFile());
    pb.environment().clear();
    pb.environment().putAll(environment(inherited, env));
    return pb.start();
  }

  /**
   * What runs the launcher as a user other than this one where this is root (whom no permission
   * stops, and who may signal any process): a script in {@code root} that runs bash as nobody
   * through setpriv; bash itself otherwise. A test that needs it is skipped where root has no
   * setpriv.
   */
  static String shellOfAnotherUserWhereRoot(Path root) throws IOException {
    if (!"root".equals(System.getProperty("user.name"))) {
      return "bash";
    }
    assumeTrue(Files.isExecutable(Path.of("/usr/bin/setpriv")), "setpriv, to run as nobody");
    Path asNobody = root.resolve("as-nobody");
    Files.writeString(
        asNobody,
        "#!/bin/sh\nexec /usr/bin/setpriv --reuid=65534 --regid=65534 --clear-groups bash"
            + " \"$@\"\n",
        StandardCharsets.UTF_8);
    assertThat(asNobody.toFile().setExecutable(true)).isTrue();
    return asNobody.toString();
  }

  /**
   * The arguments the launcher in {@code root} starts {@code java} with for {@code mesh args}, with
   * {@code env}: run against a stand-in JDK 25 in {@code root/jdk} whose {@code java} writes them
   * down, and without building ({@code MESH_NO_BUILD}).
   */
  static List<String> javaArguments(Path root, Map<String, String> env, String... args)
      throws IOException, InterruptedException {
    return javaArguments(root, System.getenv(), env, args);
  }

  /** {@link #javaArguments(Path, Map, String...)} with {@code env} over {@code inherited}. */
  static List<String> javaArguments(
      Path root, Map<String, String> inherited, Map<String, String> env, String... args)
      throws IOException, InterruptedException {
    Path noted = root.resolve("java-args");
    Map<String, String> all = new HashMap<>(env);
    all.putAll(Map.of("JAVA_HOME", standInJdk(root).toString(), "MESH_NO_BUILD", "1"));
    Ran ran = run(root, inherited, all, args);
    assertThat(ran.code()).as(ran.out()).isZero();
    return Files.readAllLines(noted);
  }

  /**
   * A stand-in JDK 25 in {@code root/jdk} (made on first use) whose {@code java} writes the
   * arguments it was started with into {@code root/java-args}; its home is returned.
   */
  static Path standInJdk(Path root) throws IOException {
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
    return jdk;
  }
}
