package org.meshjava.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.stream.Stream;

/**
 * {@link ServeAbTiming}'s command line, checked before anything starts, so that a mistyped one is
 * refused in one line naming the argument. Without the check, {@code ROUNDS} of 0 kept no round and
 * the median read past an empty array, and a build given without {@code =} read past the split:
 * both ended in an {@code ArrayIndexOutOfBoundsException} after the fake upstream and the builds
 * had started.
 *
 * @param scenario {@code proxied}, {@code reference} or {@code granted}
 * @param rounds how many rounds, at least 1 (the first third of them is dropped)
 * @param perRound serves per build in a round, at least 1
 * @param warm warm-up passes of each build, at least 0
 * @param builds the builds, in the order given (the first is the one the others are compared to)
 */
record ServeAbArguments(
    String scenario, int rounds, int perRound, int warm, List<NamedBuild> builds) {
  static final String USAGE =
      "usage: ServeAbTiming proxied|reference|granted ROUNDS PER_ROUND WARM NAME=JAR_DIR ...";

  private static final Set<String> SCENARIOS = Set.of("proxied", "reference", "granted");

  /**
   * One build: the name it is printed under and the directory of its jars.
   *
   * @param name not empty
   * @param jars a directory
   */
  record NamedBuild(String name, Path jars) {
    NamedBuild {
      Objects.requireNonNull(name, "name");
      Objects.requireNonNull(jars, "jars");
      if (name.isEmpty()) {
        throw new IllegalArgumentException("a build's name is empty");
      }
    }
  }

  ServeAbArguments {
    Objects.requireNonNull(scenario, "scenario");
    if (!SCENARIOS.contains(scenario)) {
      throw new IllegalArgumentException(
          "unknown scenario " + scenario + " (proxied, reference or granted)");
    }
    if (rounds < 1) {
      throw new IllegalArgumentException("ROUNDS must be at least 1, not " + rounds);
    }
    if (perRound < 1) {
      throw new IllegalArgumentException("PER_ROUND must be at least 1, not " + perRound);
    }
    if (warm < 0) {
      throw new IllegalArgumentException("WARM must be at least 0, not " + warm);
    }
    builds = List.copyOf(builds);
    if (builds.isEmpty()) {
      throw new IllegalArgumentException("no build given (NAME=JAR_DIR)");
    }
  }

  /**
   * {@code args} read; {@link IllegalArgumentException} with the reason for a line that is short,
   * names an unknown scenario, gives a count that is not a whole number in range, or a build that
   * is not {@code NAME=JAR_DIR} with a directory of jars there.
   */
  static ServeAbArguments parse(String... args) {
    if (args.length < 5) {
      throw new IllegalArgumentException(
          "expected a scenario, three counts and at least one build; got "
              + args.length
              + " argument"
              + (args.length == 1 ? "" : "s"));
    }
    List<NamedBuild> builds = new ArrayList<>();
    for (int i = 4; i < args.length; i++) {
      String[] nd = args[i].split("=", 2);
      if (nd.length != 2 || nd[0].isEmpty() || nd[1].isEmpty()) {
        throw new IllegalArgumentException("build '" + args[i] + "' is not NAME=JAR_DIR");
      }
      Path dir = Path.of(nd[1]);
      if (!Files.isDirectory(dir)) {
        throw new IllegalArgumentException("build " + nd[0] + ": " + dir + " is not a directory");
      }
      if (!holdsAJar(dir)) {
        // mesh-cli/target given for mesh-cli/target/lib: a NoClassDefFoundError (the worker links
        // to classes no jar there holds) in a stack trace, after the fake upstream had started.
        throw new IllegalArgumentException("build " + nd[0] + ": " + dir + " holds no .jar");
      }
      builds.add(new NamedBuild(nd[0], dir));
    }
    return new ServeAbArguments(
        args[0],
        count("ROUNDS", args[1]),
        count("PER_ROUND", args[2]),
        count("WARM", args[3]),
        builds);
  }

  private static boolean holdsAJar(Path dir) {
    try (Stream<Path> files = Files.list(dir)) {
      return files.anyMatch(f -> f.toString().endsWith(".jar"));
    } catch (IOException e) {
      throw new IllegalArgumentException(dir + " cannot be listed: " + e.getMessage(), e);
    }
  }

  private static int count(String what, String text) {
    try {
      return Integer.parseInt(text);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(what + " is not a whole number: " + text, e);
    }
  }
}
