package org.meshjava.conformance.pack;

import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.meshjava.conformance.pack.internal.MeshJavaPackSubject;

/**
 * Starts a subject's {@code main} in a child JVM with this test run's classes, so that the pack
 * reaches it only through the subprocess protocol, as it would reach a subject in any language.
 */
public final class SubjectLauncher {
  /**
   * A subject answers one pack and exits: the serial collector and the quick compiler only, as
   * mesh-journal's {@code ChildJava.QUICK} gives the other tests' children (this module's tests do
   * not reach that test jar). The JIT's optimising compiler and G1's threads cost a subject about a
   * third of its CPU for a run too short to pay them back.
   */
  static final List<String> QUICK = List.of("-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1");

  private SubjectLauncher() {}

  public static SubjectProcess start(Class<?> main) throws IOException {
    return SubjectProcess.start(argv(main), Duration.ofSeconds(60));
  }

  public static List<String> argv(Class<?> main) {
    Set<String> path = new LinkedHashSet<>();
    for (String property : List.of("jdk.module.path", "java.class.path")) {
      String p = System.getProperty(property, "");
      for (String entry : p.split(java.io.File.pathSeparator)) {
        if (!entry.isBlank()) {
          path.add(entry);
        }
      }
    }
    path.add(location(main));
    path.add(location(MeshJavaPackSubject.class));
    String javaExe = ProcessHandle.current().info().command().orElse("java");
    List<String> argv = new ArrayList<>();
    argv.add(javaExe);
    argv.addAll(QUICK);
    argv.add("-cp");
    argv.add(String.join(java.io.File.pathSeparator, path));
    argv.add(main.getName());
    return argv;
  }

  private static String location(Class<?> c) {
    try {
      return Path.of(c.getProtectionDomain().getCodeSource().getLocation().toURI()).toString();
    } catch (URISyntaxException e) {
      throw new IllegalStateException(e);
    }
  }

  /** The committed pack, found from the module directory Maven runs tests in. */
  public static Path pack() {
    Path here = Path.of("").toAbsolutePath();
    for (Path p = here; p != null; p = p.getParent()) {
      Path candidate = p.resolve("conformance/v1/cases");
      if (java.nio.file.Files.isDirectory(candidate)) {
        return candidate;
      }
    }
    throw new IllegalStateException("conformance/v1/cases not found above " + here);
  }
}
