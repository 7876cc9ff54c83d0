package org.meshjava.engine.onnx;

import java.io.IOException;
import java.lang.reflect.Field;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The temporary directory ONNX Runtime unpacks its native libraries into, removed as soon as they
 * are loaded (or, where a loaded library cannot be deleted, when the JVM exits).
 *
 * <p>Why: ONNX Runtime (1.20) makes a directory {@code onnxruntime-java…} under {@code
 * java.io.tmpdir}, unpacks its libraries into it, and marks each library and then the directory for
 * deletion on exit. The JVM deletes what was marked in the reverse of the order it was marked, so
 * it tries the directory first, while the libraries are still in it, and fails: every process that
 * loaded ONNX Runtime left an empty directory behind. And a process that is killed (SIGKILL, a test
 * runner's timeout, a mutation-testing minion) runs no exit code at all and left the libraries too,
 * about 20 MB each time.
 *
 * <p>So, on a system where a loaded library stays mapped after its file is deleted (Linux, macOS:
 * every one but Windows), the libraries and the directory are deleted right after ONNX Runtime has
 * loaded them, which leaves a killed process nothing behind but what it unpacked in the instant
 * before. ONNX Runtime reads that directory again only to unpack an execution provider's library
 * (CUDA and the like), which this module never asks for. On Windows a loaded library cannot be
 * deleted, so there the removal waits for a shutdown hook, which runs before the JVM's own
 * deletions; a killed process there leaves the libraries, as ONNX Runtime alone would.
 *
 * <p>Directories that earlier killed processes left are not looked for: their names do not say
 * which process made them, and one still being filled by a starting process looks the same.
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

  /**
   * Removes the directory now where loaded libraries may be deleted, else when the JVM exits (see
   * the class note); once per JVM, after ONNX Runtime has loaded.
   */
  static void removeOnceLoaded() {
    if (HOOKED.get()) {
      return;
    }
    Optional<Path> dir = find();
    if (dir.isPresent() && HOOKED.compareAndSet(false, true)) {
      if (!WINDOWS) {
        remove(dir.get());
      }
      // Also at exit: on Windows the only removal, elsewhere a second try at what failed now.
      Runtime.getRuntime()
          .addShutdownHook(new Thread(() -> remove(dir.get()), "onnxruntime-libraries-removal"));
    }
  }

  /** Whether this is Windows, where a library a process has loaded cannot be deleted. */
  private static final boolean WINDOWS =
      System.getProperty("os.name", "").toLowerCase(Locale.ROOT).startsWith("windows");

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
