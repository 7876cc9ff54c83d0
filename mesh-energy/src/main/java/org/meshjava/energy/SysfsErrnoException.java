package org.meshjava.energy;

import java.nio.file.FileSystemException;
import java.nio.file.Path;

/**
 * An open of a sysfs file that failed with {@code errno}, read exactly where the file was opened
 * through FFM ({@link ErrnoSysfsReader}): the failure's kind is told from the number, never from
 * the C library's words, which a translated locale changes. EACCES and ENOENT are not thrown as
 * this but as the JDK's {@link java.nio.file.AccessDeniedException} and {@link
 * java.nio.file.NoSuchFileException}, which every caller already tells apart. Immutable.
 */
final class SysfsErrnoException extends FileSystemException {
  private static final long serialVersionUID = 1L;

  private final int errno;

  SysfsErrnoException(Path file, int errno, String reason) {
    super(file.toString(), null, reason);
    this.errno = errno;
  }

  /** The error number the open failed with (Linux's generic numbering). */
  int errno() {
    return errno;
  }
}
