package org.meshjava.journal.testing;

import java.io.File;
import java.net.URISyntaxException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * The command line of a child JVM that runs a main class of the tests on this test JVM's module and
 * class path, for tests that need a second process: an OS lock, a signal and a SIGKILL are a
 * process's, which a run in this JVM cannot show. Shared through mesh-journal's test jar by the
 * tests of mesh-journal, mesh-steward and mesh-cli (the lowest module whose tests launch one).
 */
public final class ChildJava {
  /** Options for a short-lived child: a small collector, and the quick compiler only. */
  public static final List<String> QUICK = List.of("-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1");

  private ChildJava() {}

  /** {@code java} with {@link #QUICK}, then {@code main} and {@code args}. */
  public static List<String> command(Class<?> main, String... args) {
    return command(QUICK, main, args);
  }

  /** {@code java} with {@code jvmOptions}, then {@code main} and {@code args}. */
  public static List<String> command(List<String> jvmOptions, Class<?> main, String... args) {
    List<String> cmd = new ArrayList<>();
    cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    cmd.add("-cp");
    cmd.add(classPath(main));
    cmd.addAll(jvmOptions);
    cmd.add(main.getName());
    cmd.addAll(List.of(args));
    return cmd;
  }

  /**
   * This JVM's module path and class path as one class path, with the folder or jar {@code main}
   * was loaded from, each entry once (a test JVM on the module path has its tested module's classes
   * there, not on the class path).
   */
  public static String classPath(Class<?> main) {
    Set<String> path = new LinkedHashSet<>();
    for (String property : List.of("jdk.module.path", "java.class.path")) {
      for (String entry : System.getProperty(property, "").split(File.pathSeparator)) {
        if (!entry.isBlank()) {
          path.add(entry);
        }
      }
    }
    try {
      path.add(
          Path.of(main.getProtectionDomain().getCodeSource().getLocation().toURI()).toString());
    } catch (URISyntaxException e) {
      throw new IllegalStateException("cannot place " + main.getName() + " on a class path", e);
    }
    return String.join(File.pathSeparator, path);
  }
}
