package org.meshjava.cli;

import java.io.File;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code mesh} in a child JVM on this test JVM's class path, for tests that signal or kill it: a
 * signal, a SIGKILL and an OS lock are a process's, which an in-process run cannot show.
 */
final class ChildMesh {
  private ChildMesh() {}

  /** The command line that runs {@code mesh ARGS}. */
  static List<String> command(String... args) {
    String cp =
        String.join(
            File.pathSeparator,
            System.getProperty("jdk.module.path", ""),
            System.getProperty("java.class.path", ""));
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    List<String> cmd =
        new ArrayList<>(
            List.of(
                java,
                "-cp",
                cp,
                "-XX:+UseSerialGC",
                "-XX:TieredStopAtLevel=1",
                Mesh.class.getName()));
    cmd.addAll(List.of(args));
    return cmd;
  }
}
