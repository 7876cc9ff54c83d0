package org.meshjava.engine.onnx;

import java.io.IOException;
import java.lang.reflect.Field;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The temporary directory ONNX Runtime unpacks its native libraries into, removed when the JVM
 * exits.
 *
 * <p>Why: ONNX Runtime (1.20) makes a directory {@code onnxruntime-java…} under {@code
 * java.io.tmpdir}, unpacks its libraries into it, and marks each library and then the directory for
 * deletion on exit. The JVM deletes what was marked in the reverse of the order it was marked, so
 * it tries the directory first, while the libraries are still in it, and fails: every process that
 * loaded ONNX Runtime left an empty directory behind. This removes the libraries and then the
 * directory from a shutdown hook, which runs before those deletions. A process that is killed runs
 * no hook, and leaves the libraries as ONNX Runtime alone would.
 *
 * <p>ONNX Runtime does not say where the directory is; it is read from its loader's field, which
 * the library's automatic module opens. Should a later version rename the field, nothing is removed
 * (and this module's test says so). Thread-safe.
 */
final class OrtLibraryDirectory {
  private static final AtomicBoolean HOOKED = new AtomicBoolean();

  private OrtLibraryDirectory() {}

  /** The directory, once ONNX Runtime has loaded; empty if it made none or cannot be asked. */
  static Optional<Path> find() {
    try {
      Field f = Class.forName("ai.onnxruntime.OnnxRuntime").getDeclaredField("tempDirectory");
      f.setAccessible(true);
      return f.get(null) instanceof Path p ? Optional.of(p) : Optional.empty();
    } catch (ReflectiveOperationException | RuntimeException e) {
      return Optional.empty();
    }
  }

  /** Removes the directory when the JVM exits; once per JVM, after ONNX Runtime has loaded. */
  static void removeOnExit() {
    if (HOOKED.get()) {
      return;
    }
    Optional<Path> dir = find();
    if (dir.isPresent() && HOOKED.compareAndSet(false, true)) {
      Runtime.getRuntime()
          .addShutdownHook(new Thread(() -> remove(dir.get()), "onnxruntime-libraries-removal"));
    }
  }

  /**
   * Deletes the regular files directly in {@code dir}, then {@code dir}; best effort, since at exit
   * there is no one to tell (a library still loaded on Windows cannot be deleted).
   */
  static void remove(Path dir) {
    if (!Files.isDirectory(dir, LinkOption.NOFOLLOW_LINKS)) {
      return;
    }
    try (DirectoryStream<Path> files = Files.newDirectoryStream(dir)) {
      for (Path file : files) {
        if (Files.isRegularFile(file, LinkOption.NOFOLLOW_LINKS)) {
          Files.deleteIfExists(file);
        }
      }
      Files.deleteIfExists(dir);
    } catch (IOException | RuntimeException e) {
      // Left for the JVM's own deletion on exit, which removes the libraries at least.
    }
  }
}
