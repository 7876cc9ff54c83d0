package org.meshjava.energy;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.VarHandle;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileSystems;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Optional;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.meshjava.core.internal.JvmFailure;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads a sysfs attribute with {@code open(2)}, {@code pread(2)} and {@code close(2)} through FFM,
 * capturing {@code errno} right after each call ({@link Linker.Option#captureCallState}), so a
 * failure to open is told by its number: NIO gives EPERM, ELOOP, ENOTDIR, ENODEV and ENXIO only as
 * the C library's {@code strerror} text, which a translated locale changes ({@link
 * SysfsOpenFailure}). Used where this module already may call native code (it is granted native
 * access, as NVML needs) on Linux on x86-64 or AArch64, whose error numbers are the kernel's
 * generic ones; elsewhere {@link #orFiles()} gives NIO's {@link SysfsReader#FILES}, whose reading
 * of the text stays, so nothing new asks for native access or warns for it. Listing folders stays
 * NIO's: a folder that cannot be listed is named as a listing whatever its code. A reader is
 * stateless and thread-safe; {@link #orFiles()}'s is bound once per process.
 */
final class ErrnoSysfsReader implements SysfsReader {
  private static final Logger LOG = LoggerFactory.getLogger(ErrnoSysfsReader.class);

  // Linux's generic error numbers (asm-generic/errno-base.h, errno.h), shared by x86-64 and
  // AArch64; other architectures number some differently and are not bound.
  static final int EPERM = 1;
  static final int ENOENT = 2;
  static final int EINTR = 4;
  static final int ENXIO = 6;
  static final int EACCES = 13;
  static final int ENODEV = 19;
  static final int ENOTDIR = 20;
  static final int ELOOP = 40;

  private static final int O_RDONLY = 0;
  private static final int O_CLOEXEC = 0x80000;

  /** How much one {@code pread} asks for: every attribute the meter reads is far shorter. */
  private static final int CHUNK = 4096;

  // The captured state's layout and its errno, taken when the reader is bound rather than when
  // this class is initialised, so that nothing but the binding can fail there (a failed class
  // initialisation fails every later use of the class for the process's life).
  private final MemoryLayout captured;
  private final VarHandle errno;
  private final MethodHandle open;
  private final MethodHandle pread;
  private final MethodHandle close;

  private ErrnoSysfsReader(
      MemoryLayout captured, MethodHandle open, MethodHandle pread, MethodHandle close) {
    this.captured = captured;
    this.errno = captured.varHandle(MemoryLayout.PathElement.groupElement("errno"));
    this.open = open;
    this.pread = pread;
    this.close = close;
  }

  /**
   * This reader with {@code open} in place of the C library's: a seam for tests, which run as root,
   * for whom file permissions never refuse an open, so an EACCES (or an EINTR) is scripted through
   * it and met by the same code a real one meets. {@code open} takes the captured state, the path
   * and the flags, and sets {@code errno} in the state where it fails.
   */
  ErrnoSysfsReader withOpen(MethodHandle open) {
    return new ErrnoSysfsReader(captured, open, pread, close);
  }

  /**
   * This reader where it can be bound without asking for native access this module was not given,
   * on Linux on x86-64 or AArch64; otherwise {@link SysfsReader#FILES}. Bound once per process, at
   * the first read: a host without a powercap tree never pays for the binding.
   */
  static SysfsReader orFiles() {
    return PROCESS;
  }

  private static final OnFirstRead PROCESS = new OnFirstRead(ErrnoSysfsReader::bound);

  /**
   * A reader bound at its first read by {@code binding}, and {@link SysfsReader#FILES} where that
   * gives none or fails (named once in the log, at WARN). The JVM failing while it binds (the heap
   * gone: {@link JvmFailure}) passes to that read as it is, and the next read binds again: it was
   * bound in a holder class before, whose failed initialisation left every later read of the
   * process failing with {@link NoClassDefFoundError}, the meter's RAPL counters with it.
   * Thread-safe: one read binds, those beside it wait for it.
   */
  static final class OnFirstRead implements SysfsReader {
    private final Supplier<Optional<ErrnoSysfsReader>> binding;
    private volatile @Nullable SysfsReader reader;

    OnFirstRead(Supplier<Optional<ErrnoSysfsReader>> binding) {
      this.binding = binding;
    }

    @Override
    public String read(Path file) throws IOException {
      return reader().read(file);
    }

    private SysfsReader reader() {
      SysfsReader r = reader;
      if (r != null) {
        return r;
      }
      synchronized (this) {
        r = reader;
        if (r == null) {
          r = bindOrFiles();
          reader = r;
        }
        return r;
      }
    }

    private SysfsReader bindOrFiles() {
      try {
        return binding.get().<SysfsReader>map(r -> r).orElse(SysfsReader.FILES);
      } catch (RuntimeException | Error e) {
        JvmFailure.passIfFailing(e);
        LOG.warn(
            "powercap files are read through NIO for the rest of this process: binding open(2),"
                + " pread(2) and close(2) through FFM failed ({}), so a failure to open one is"
                + " told by the C library's words, not its errno",
            String.valueOf(e));
        return SysfsReader.FILES;
      }
    }
  }

  /**
   * This reader, where it can be bound as {@link #orFiles()} says: empty on another platform or
   * without native access; a binding that fails there (a C library without one of the calls) is
   * thrown, for {@link OnFirstRead} to name in the log.
   */
  static Optional<ErrnoSysfsReader> bound() {
    return bound(ErrnoSysfsReader::bind);
  }

  /**
   * {@link #bound()} with {@code bind} binding the calls. A failure of {@code bind} was caught here
   * and given as no reader, so the process read through NIO without the warning that README and
   * {@link OnFirstRead} promise for a failed binding; it passes to {@link OnFirstRead} now.
   */
  static Optional<ErrnoSysfsReader> bound(Supplier<ErrnoSysfsReader> bind) {
    String os = System.getProperty("os.name", "");
    String arch = System.getProperty("os.arch", "").toLowerCase(Locale.ROOT);
    boolean genericErrno = arch.equals("amd64") || arch.equals("x86_64") || arch.equals("aarch64");
    if (!os.equals("Linux")
        || !genericErrno
        || !ErrnoSysfsReader.class.getModule().isNativeAccessEnabled()) {
      return Optional.empty();
    }
    return Optional.of(bind.get());
  }

  @SuppressWarnings("restricted") // binding the C library's calls is the point of this class
  private static ErrnoSysfsReader bind() {
    Linker linker = Linker.nativeLinker();
    Linker.Option errno = Linker.Option.captureCallState("errno");
    var libc = linker.defaultLookup();
    return new ErrnoSysfsReader(
        Linker.Option.captureStateLayout(),
        linker.downcallHandle(
            libc.findOrThrow("open"), FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT), errno),
        linker.downcallHandle(
            libc.findOrThrow("pread"),
            FunctionDescriptor.of(JAVA_LONG, JAVA_INT, ADDRESS, JAVA_LONG, JAVA_LONG),
            errno),
        linker.downcallHandle(
            libc.findOrThrow("close"), FunctionDescriptor.of(JAVA_INT, JAVA_INT)));
  }

  /**
   * Reads {@code file} as {@link SysfsReader#FILES} does (at most {@link #MAX_ATTRIBUTE_BYTES},
   * trimmed), a failure to open thrown by its {@code errno}: {@link AccessDeniedException} for
   * EACCES, {@link NoSuchFileException} for ENOENT, {@link SysfsErrnoException} for any other; a
   * read that fails once open is a plain {@link IOException}, as NIO's is. A path outside the
   * default file system is read by NIO.
   */
  @Override
  public String read(Path file) throws IOException {
    if (file.getFileSystem() != FileSystems.getDefault()) {
      return SysfsReader.FILES.read(file);
    }
    // Absolute, as NIO resolves a relative path against user.dir, which need not be the cwd.
    Optional<byte[]> name = fileName(file.toAbsolutePath().toString(), FILE_NAMES);
    if (name.isEmpty()) {
      return SysfsReader.FILES.read(file);
    }
    try (Arena arena = Arena.ofConfined()) {
      MemorySegment state = arena.allocate(captured);
      MemorySegment path = arena.allocate(name.get().length + 1L);
      MemorySegment.copy(name.get(), 0, path, JAVA_BYTE, 0, name.get().length);
      path.set(JAVA_BYTE, name.get().length, (byte) 0);
      int fd;
      do {
        fd = (int) open.invokeExact(state, path, O_RDONLY | O_CLOEXEC);
      } while (fd < 0 && errno(state) == EINTR);
      if (fd < 0) {
        throw openFailed(file, errno(state));
      }
      try {
        return readOpen(file, fd, state, arena.allocate(CHUNK));
      } finally {
        int unused = (int) close.invokeExact(fd);
      }
    } catch (IOException | RuntimeException | Error e) {
      throw e;
    } catch (Throwable t) {
      // invokeExact declares Throwable; the C calls throw nothing checked.
      throw new IOException("reading " + file + " threw " + t, t);
    }
  }

  /**
   * The charset the JVM gives file names to the system in ({@code sun.jnu.encoding}, which follows
   * the locale, not {@code file.encoding}'s UTF-8), as {@code sun.nio.fs.Util} takes it: the
   * default charset where it names none this JVM has. Paths were encoded as UTF-8 here before, so
   * under a locale of another charset (ISO-8859-1) a powercap root with a letter outside ASCII was
   * opened by other bytes than NIO's, and its counters read as missing.
   */
  static final Charset FILE_NAMES = fileNameCharset(System.getProperty("sun.jnu.encoding"));

  /** The charset named {@code name}, or the default one where there is none by that name. */
  static Charset fileNameCharset(@Nullable String name) {
    try {
      return name == null ? Charset.defaultCharset() : Charset.forName(name);
    } catch (IllegalArgumentException e) {
      return Charset.defaultCharset();
    }
  }

  /**
   * {@code path}'s bytes as the JVM gives them to the system, in {@code charset}; empty where they
   * may not be the file's own: a path listed from a folder keeps its bytes, and where those are no
   * text in the charset (a name written under another locale), its string holds U+FFFD or does not
   * encode back to itself, so NIO, which opens the bytes it keeps, reads it instead.
   */
  static Optional<byte[]> fileName(String path, Charset charset) {
    if (path.indexOf('\uFFFD') >= 0) {
      return Optional.empty();
    }
    byte[] bytes = path.getBytes(charset);
    return new String(bytes, charset).equals(path) ? Optional.of(bytes) : Optional.empty();
  }

  private String readOpen(Path file, int fd, MemorySegment state, MemorySegment buffer)
      throws Throwable {
    ByteArrayOutputStream text = new ByteArrayOutputStream();
    while (text.size() <= MAX_ATTRIBUTE_BYTES) {
      long n = (long) pread.invokeExact(state, fd, buffer, (long) CHUNK, (long) text.size());
      if (n < 0) {
        int code = errno(state);
        if (code == EINTR) {
          continue;
        }
        throw new IOException(said(code));
      }
      if (n == 0) {
        return new String(text.toByteArray(), StandardCharsets.US_ASCII).trim();
      }
      text.write(buffer.asSlice(0, n).toArray(JAVA_BYTE), 0, (int) n);
    }
    throw new IOException(
        file + " holds more than " + MAX_ATTRIBUTE_BYTES + " bytes: not a sysfs attribute");
  }

  private int errno(MemorySegment state) {
    return (int) errno.get(state, 0L);
  }

  /** The exception a failed open of {@code file} with {@code errno} is thrown as. */
  static IOException openFailed(Path file, int errno) {
    return switch (errno) {
      case EACCES -> new AccessDeniedException(file.toString(), null, said(errno));
      case ENOENT -> new NoSuchFileException(file.toString(), null, said(errno));
      default -> new SysfsErrnoException(file, errno, said(errno));
    };
  }

  /**
   * How a failure with {@code errno} is said to an operator: its name and the C library's English
   * words, as NIO's message gave them on an English locale, and its number; the words are for
   * reading only, the kind is told by the number ({@link SysfsOpenFailure}).
   */
  static String said(int errno) {
    String named =
        switch (errno) {
          case EPERM -> "EPERM: Operation not permitted";
          case ENOENT -> "ENOENT: No such file or directory";
          case EINTR -> "EINTR: Interrupted system call";
          case 5 -> "EIO: Input/output error";
          case ENXIO -> "ENXIO: No such device or address";
          case 11 -> "EAGAIN: Resource temporarily unavailable";
          case 12 -> "ENOMEM: Cannot allocate memory";
          case EACCES -> "EACCES: Permission denied";
          case 16 -> "EBUSY: Device or resource busy";
          case ENODEV -> "ENODEV: No such device";
          case ENOTDIR -> "ENOTDIR: Not a directory";
          case 21 -> "EISDIR: Is a directory";
          case 22 -> "EINVAL: Invalid argument";
          case 23 -> "ENFILE: Too many open files in system";
          case 24 -> "EMFILE: Too many open files";
          case 36 -> "ENAMETOOLONG: File name too long";
          case ELOOP -> "ELOOP: Too many levels of symbolic links";
          case 61 -> "ENODATA: No data available";
          case 95 -> "EOPNOTSUPP: Operation not supported";
          case 110 -> "ETIMEDOUT: Connection timed out";
          default -> "error";
        };
    return named + " (errno " + errno + ")";
  }
}
