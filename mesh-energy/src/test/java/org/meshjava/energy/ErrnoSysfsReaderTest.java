package org.meshjava.energy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeFalse;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.invoke.VarHandle;
import java.nio.channels.DatagramChannel;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.NoSuchElementException;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntFunction;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The FFM reader tells a failed open by its {@code errno}, not by the C library's words: over a
 * fake sysfs tree of a file missing, a symbolic link loop, a file where a folder should be, a
 * folder, a file of mode 000 (where the build does not run as root, for whom permissions never
 * deny) and one too large to be an attribute, each failure is the kind NIO's text gave on an
 * English locale. Runs where the reader binds (Linux on x86-64 or AArch64, native access granted,
 * as this module's tests are).
 */
class ErrnoSysfsReaderTest {
  @TempDir static Path tree;
  private static Optional<ErrnoSysfsReader> bound;

  @BeforeAll
  static void bind() {
    bound = ErrnoSysfsReader.bound();
  }

  private static ErrnoSysfsReader reader() {
    assumeTrue(bound.isPresent(), "the FFM reader binds on this platform");
    return bound.orElseThrow();
  }

  /** What opening {@code file} through the FFM reader failed as. */
  private static SysfsOpenFailure failureOf(Path file) {
    ErrnoSysfsReader reader = reader();
    try {
      reader.read(file);
    } catch (FileSystemException e) {
      return SysfsOpenFailure.of(e);
    } catch (IOException e) {
      throw new AssertionError("not a failure to open: " + e, e);
    }
    throw new AssertionError(file + " was read");
  }

  @Test
  void aFile_isReadTrimmed_asNioReadsIt() throws IOException {
    Path file = Files.writeString(tree.resolve("energy_uj"), "123456\n");

    assertThat(reader().read(file)).isEqualTo("123456").isEqualTo(SysfsReader.FILES.read(file));
  }

  @Test
  void aMissingFile_isMissing_asNoSuchFile() {
    Path missing = tree.resolve("no-such-zone").resolve("energy_uj");

    assertThatThrownBy(() -> reader().read(missing)).isInstanceOf(NoSuchFileException.class);
    assertThat(failureOf(missing)).isEqualTo(SysfsOpenFailure.MISSING);
  }

  @Test
  void aSymbolicLinkLoop_isTheLoop_byItsErrno() throws IOException {
    Path loop = tree.resolve("loop");
    Files.createSymbolicLink(loop, loop.getFileName());

    assertThatThrownBy(() -> reader().read(loop))
        .isInstanceOfSatisfying(
            SysfsErrnoException.class,
            e -> assertThat(e.errno()).isEqualTo(ErrnoSysfsReader.ELOOP));
    assertThat(failureOf(loop)).isEqualTo(SysfsOpenFailure.LINK_LOOP);
  }

  @Test
  void aFileWhereAFolderShouldBe_isNotAFolder_byItsErrno() throws IOException {
    Path zone = Files.writeString(tree.resolve("intel-rapl:9"), "not a zone\n");

    assertThat(failureOf(zone.resolve("name"))).isEqualTo(SysfsOpenFailure.NOT_A_FOLDER);
  }

  @Test
  void aFolder_opensButItsReadFails_asNioSays() throws IOException {
    Path folder = Files.createDirectories(tree.resolve("intel-rapl:8"));

    assertThatThrownBy(() -> reader().read(folder))
        .isInstanceOf(IOException.class)
        .isNotInstanceOf(FileSystemException.class);
    assertThatThrownBy(() -> SysfsReader.FILES.read(folder))
        .isInstanceOf(IOException.class)
        .isNotInstanceOf(FileSystemException.class);
  }

  @Test
  void aFileOfModeZero_isDenied_whereTheBuildIsNotRoot() throws IOException {
    Path closed = Files.writeString(tree.resolve("closed_energy_uj"), "1\n");
    Files.setPosixFilePermissions(closed, PosixFilePermissions.fromString("---------"));
    assumeFalse(Files.isReadable(closed), "not root, for whom mode 000 still reads");

    assertThatThrownBy(() -> reader().read(closed)).isInstanceOf(AccessDeniedException.class);
  }

  /**
   * The mode-000 case above in a form that runs as root (as CI does): an open the C library answers
   * EACCES, scripted through the reader's seam, is met by the same code a real refusal meets, and
   * discovery gives the counter the access advice; an EINTR before it is retried, not reported.
   */
  @Test
  void anOpenAnsweredEacces_isDenied_withTheAccessAdvice_asRootToo() throws Exception {
    Path root = Files.createDirectories(tree.resolve("denied-root"));
    Path zone = Files.createDirectories(root.resolve("intel-rapl:0"));
    Files.writeString(zone.resolve("name"), "package-0\n");
    Files.writeString(zone.resolve("max_energy_range_uj"), "262143328850\n");
    Path energy = Files.writeString(zone.resolve("energy_uj"), "1000\n");
    ErrnoSysfsReader real = reader();
    INTERRUPTED_OPENS.set(0);
    ErrnoSysfsReader denying = real.withOpen(OPEN_INTERRUPTED_THEN_DENIED);

    assertThatThrownBy(() -> denying.read(energy)).isInstanceOf(AccessDeniedException.class);
    assertThat(INTERRUPTED_OPENS).as("the EINTR was retried").hasValue(2);
    MeterDiscovery found =
        MeterDiscovery.discover(
            DiscoveryOptions.defaults().withRaplRoot(root).withoutNvml(),
            new FakeClock(),
            r -> {},
            file -> (file.equals(energy) ? denying : real).read(file),
            "Linux");
    assertThat(found.counters())
        .filteredOn(c -> c.counter().equals("rapl:intel-rapl:0"))
        .singleElement()
        .satisfies(c -> assertThat(c.issue()).contains(CounterIssue.UNREADABLE));
    assertThat(found.unreadableAdvice())
        .hasValueSatisfying(a -> assertThat(a).contains("[rapl:intel-rapl:0]", "udev"));
  }

  /**
   * A real errno other than EACCES or ENOENT that runs as root: opening a socket's link under
   * {@code /proc/self/fd} is answered ENXIO, which is a device gone, as the words NIO gives say.
   */
  @Test
  void aSocketsLinkInProc_isGone_byItsErrno_asNioSaysToo() throws IOException {
    try (DatagramChannel socket = DatagramChannel.open();
        Stream<Path> fds = Files.list(Path.of("/proc/self/fd"))) {
      Path link =
          fds.filter(fd -> isSocket(fd))
              .findFirst()
              .orElseThrow(() -> new AssertionError("no socket among this process's files"));

      assertThatThrownBy(() -> reader().read(link))
          .isInstanceOfSatisfying(
              SysfsErrnoException.class,
              e -> assertThat(e.errno()).isEqualTo(ErrnoSysfsReader.ENXIO));
      assertThat(failureOf(link)).isEqualTo(SysfsOpenFailure.GONE);
      assertThatThrownBy(() -> SysfsReader.FILES.read(link))
          .isInstanceOfSatisfying(
              FileSystemException.class,
              e -> assertThat(SysfsOpenFailure.of(e)).isEqualTo(SysfsOpenFailure.GONE));
    }
  }

  private static boolean isSocket(Path fd) {
    try {
      return Files.readSymbolicLink(fd).toString().startsWith("socket:");
    } catch (IOException e) {
      return false;
    }
  }

  private static final VarHandle ERRNO =
      Linker.Option.captureStateLayout().varHandle(MemoryLayout.PathElement.groupElement("errno"));
  private static final AtomicInteger INTERRUPTED_OPENS = new AtomicInteger();
  private static final MethodHandle OPEN_INTERRUPTED_THEN_DENIED;

  static {
    try {
      OPEN_INTERRUPTED_THEN_DENIED =
          MethodHandles.lookup()
              .findStatic(
                  ErrnoSysfsReaderTest.class,
                  "openInterruptedThenDenied",
                  MethodType.methodType(
                      int.class, MemorySegment.class, MemorySegment.class, int.class));
    } catch (ReflectiveOperationException e) {
      throw new ExceptionInInitializerError(e);
    }
  }

  /** An open that the C library answers EINTR the first time and EACCES after. */
  private static int openInterruptedThenDenied(MemorySegment state, MemorySegment path, int flags) {
    int call = INTERRUPTED_OPENS.incrementAndGet();
    ERRNO.set(state, 0L, call == 1 ? ErrnoSysfsReader.EINTR : ErrnoSysfsReader.EACCES);
    return -1;
  }

  /**
   * Regression: a failure the meter does not sort by its number was said as {@code error (errno
   * 24)}, and a read that failed once open as {@code errno 5}, where NIO had given the operator the
   * C library's words (a counter's status carries them): each is said with its name and words now.
   */
  @Test
  void aFailureSaysItsNameAndWords_asNioSaidThem() throws IOException {
    Path folder = Files.createDirectories(tree.resolve("intel-rapl:7"));

    assertThatThrownBy(() -> reader().read(folder))
        .hasMessage("EISDIR: Is a directory (errno 21)")
        .hasMessageContaining(catchIo(() -> SysfsReader.FILES.read(folder)).getMessage());
    assertThat(ErrnoSysfsReader.openFailed(folder.resolve("energy_uj"), 24))
        .hasMessageEndingWith(": EMFILE: Too many open files (errno 24)");
    assertThat(ErrnoSysfsReader.openFailed(folder.resolve("energy_uj"), 5))
        .hasMessageContaining("Input/output error");
  }

  private static IOException catchIo(ThrowingRead read) {
    try {
      read.run();
    } catch (IOException e) {
      return e;
    }
    throw new AssertionError("read");
  }

  private interface ThrowingRead {
    void run() throws IOException;
  }

  @Test
  void aFileLargerThanAnAttribute_isRefused() throws IOException {
    Path big = Files.write(tree.resolve("big"), new byte[SysfsReader.MAX_ATTRIBUTE_BYTES + 10]);

    assertThatThrownBy(() -> reader().read(big)).hasMessageContaining("not a sysfs attribute");
  }

  /**
   * Regression: the process's reader was bound in a holder class, so an {@code Error} while it
   * bound (a linkage failure in the binding) failed that class's initialisation, and every later
   * powercap read of the process threw {@link NoClassDefFoundError}. The reader now falls back to
   * NIO, named once in the log, and reads.
   */
  @Test
  void aBindingThatFailsWithAnError_readsThroughNio_namedOnceInTheLog() throws IOException {
    Path file = Files.writeString(tree.resolve("bind_failed_energy_uj"), "4242\n");
    AtomicInteger binds = new AtomicInteger();
    ErrnoSysfsReader.OnFirstRead reader =
        boundBy(
            binds,
            n -> {
              throw new NoClassDefFoundError("jdk/internal/foreign/abi/SharedUtils");
            });
    String[] read = new String[2];

    String log = logOfTwoReads(reader, file, read);

    assertThat(read).containsExactly("4242", "4242");
    assertThat(binds).as("bound once").hasValue(1);
    assertThat(log)
        .containsOnlyOnce("read through NIO")
        .contains("NoClassDefFoundError", "SharedUtils");
  }

  /**
   * Regression: a binding that failed with a RuntimeException (a C library without one of the
   * calls: {@code findOrThrow}'s NoSuchElementException) was caught in {@code bound()} and given as
   * no reader, so the process read through NIO without a word, where README says a failed binding
   * is said once at WARN. It reaches {@link ErrnoSysfsReader.OnFirstRead}, which says it.
   */
  @Test
  void aCLibraryWithoutOneOfTheCalls_readsThroughNio_namedOnceInTheLog() throws IOException {
    reader();
    Path file = Files.writeString(tree.resolve("no_pread_energy_uj"), "55\n");
    ErrnoSysfsReader.OnFirstRead reader =
        new ErrnoSysfsReader.OnFirstRead(
            () ->
                ErrnoSysfsReader.bound(
                    () -> {
                      throw new NoSuchElementException("Symbol not found: pread");
                    }));
    String[] read = new String[2];

    String log = logOfTwoReads(reader, file, read);

    assertThat(read).containsExactly("55", "55");
    assertThat(log).containsOnlyOnce("read through NIO").contains("Symbol not found: pread");
  }

  /**
   * The heap running out while the reader binds is the JVM failing ({@code JvmFailure}): it passes
   * to that read as it is, and is not kept, so the next read binds again and reads.
   */
  @Test
  void theHeapRunningOutWhileBinding_failsThatReadAlone() throws IOException {
    Path file = Files.writeString(tree.resolve("heap_gone_energy_uj"), "77\n");
    AtomicInteger binds = new AtomicInteger();
    ErrnoSysfsReader.OnFirstRead reader =
        boundBy(
            binds,
            n -> {
              if (n == 1) {
                throw new OutOfMemoryError("Java heap space");
              }
              return bound;
            });

    assertThatThrownBy(() -> reader.read(file)).isInstanceOf(OutOfMemoryError.class);
    assertThat(reader.read(file)).isEqualTo("77");
    assertThat(binds).hasValue(2);
  }

  /**
   * The log of reading {@code file} twice with {@code reader}, the texts read put into {@code
   * read}.
   */
  private static String logOfTwoReads(SysfsReader reader, Path file, String[] read) {
    return CounterLogLevelsTest.logOf(
        () -> {
          try {
            read[0] = reader.read(file);
            read[1] = reader.read(file);
          } catch (IOException e) {
            throw new AssertionError(e);
          }
        });
  }

  /** A reader bound at its first read by {@code nth}, given which binding (1, 2, …) it is. */
  private static ErrnoSysfsReader.OnFirstRead boundBy(
      AtomicInteger binds, IntFunction<Optional<ErrnoSysfsReader>> nth) {
    return new ErrnoSysfsReader.OnFirstRead(() -> nth.apply(binds.incrementAndGet()));
  }

  /**
   * Regression: the FFM reader gave {@code open} a path's string encoded as UTF-8, where the JVM
   * gives file names in {@code sun.jnu.encoding} and keeps the bytes of a name it listed: a
   * powercap root whose name is not text in that encoding (written under another locale; here the
   * byte 0xE9, "é" in ISO-8859-1) was listed, its string said U+FFFD, and its files read as missing
   * where NIO opened them. Such a path is read by NIO now, as every path NIO opens.
   */
  @Test
  void aRootWhoseNameIsNotTextInTheFileNameEncoding_isRead_asNioReadsIt() throws Exception {
    reader();
    Process made =
        new ProcessBuilder(
                "bash",
                "-c",
                "d=\"$1/latin1-\"$'\\xe9'; mkdir -p \"$d\" && printf '31\\n' > \"$d/energy_uj\"",
                "bash",
                tree.toString())
            .redirectErrorStream(true)
            .start();
    assertThat(made.waitFor()).as(new String(made.getInputStream().readAllBytes())).isZero();
    Path root;
    try (Stream<Path> entries = Files.list(tree)) {
      root =
          entries
              .filter(p -> p.getFileName().toString().startsWith("latin1-"))
              .findFirst()
              .orElseThrow();
    }
    Path energy = root.resolve("energy_uj");

    assertThat(reader().read(energy)).isEqualTo("31").isEqualTo(SysfsReader.FILES.read(energy));
  }

  /**
   * A path is given to {@code open} in the charset the JVM names file names in, so that under a
   * locale of ISO-8859-1 "é" is the one byte 0xE9 NIO gives, not UTF-8's two; one that charset
   * cannot say exactly is left to NIO. The charset is {@code sun.jnu.encoding}'s.
   */
  @Test
  void aPathIsEncodedAsTheJvmEncodesFileNames() {
    assertThat(ErrnoSysfsReader.fileName("/sys/caf\u00e9", StandardCharsets.ISO_8859_1))
        .hasValueSatisfying(b -> assertThat(b).endsWith((byte) 0xE9).hasSize(9));
    assertThat(ErrnoSysfsReader.fileName("/sys/caf\u00e9", StandardCharsets.UTF_8))
        .hasValueSatisfying(b -> assertThat(b).endsWith((byte) 0xC3, (byte) 0xA9));
    assertThat(ErrnoSysfsReader.fileName("/sys/\u20ac", StandardCharsets.ISO_8859_1)).isEmpty();
    assertThat(ErrnoSysfsReader.fileName("/sys/\ufffd", StandardCharsets.UTF_8)).isEmpty();
    assertThat(ErrnoSysfsReader.FILE_NAMES)
        .isEqualTo(ErrnoSysfsReader.fileNameCharset(System.getProperty("sun.jnu.encoding")));
    assertThat(ErrnoSysfsReader.fileNameCharset("no-such-charset"))
        .isEqualTo(Charset.defaultCharset());
  }

  @Test
  void eachErrnoTheMeterNames_isTheKindItsWordsGaveOnAnEnglishLocale() {
    Path file = tree.resolve("energy_uj");
    assertThat(SysfsOpenFailure.of(open(file, ErrnoSysfsReader.EPERM)))
        .isEqualTo(SysfsOpenFailure.NOT_PERMITTED);
    assertThat(SysfsOpenFailure.of(open(file, ErrnoSysfsReader.ENODEV)))
        .isEqualTo(SysfsOpenFailure.GONE);
    assertThat(SysfsOpenFailure.of(open(file, ErrnoSysfsReader.ENXIO)))
        .isEqualTo(SysfsOpenFailure.GONE);
    assertThat(SysfsOpenFailure.of(open(file, ErrnoSysfsReader.EACCES)))
        .isEqualTo(SysfsOpenFailure.DENIED);
    assertThat(SysfsOpenFailure.of(open(file, 5))).isEqualTo(SysfsOpenFailure.OTHER);
  }

  private static FileSystemException open(Path file, int errno) {
    return (FileSystemException) ErrnoSysfsReader.openFailed(file, errno);
  }
}
