package org.meshjava.journal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.meshjava.journal.JournalHistory.STEWARD;

import java.net.URI;
import java.nio.ByteBuffer;
import java.nio.MappedByteBuffer;
import java.nio.file.FileSystem;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.meshjava.core.ContentId;
import org.meshjava.journal.internal.ReplayState;

/**
 * Snapshots kept as files (SPEC.md §60.8): named by their count, written whole, newest two kept.
 */
class FileSnapshotStoreTest {
  @TempDir Path dir;

  static Snapshot at(long count) {
    SnapshotState s = ReplayState.fresh(JournalHistory.gate()).capture(-1);
    return Snapshot.sign(
        STEWARD,
        new SnapshotState(
            new JournalPosition(
                count, Optional.of(ContentId.ofBytes(new byte[] {(byte) count})), -1),
            s.ledger(),
            s.revocations(),
            s.suspension(),
            s.lastSealed(),
            s.receipts(),
            s.open(),
            s.settled(),
            s.checkpoint(),
            s.chains(),
            s.authorisations(),
            s.revocationsReplayed()));
  }

  @Test
  void theLatest_isTheOneCoveringMostRecords_andTheNewestTwoAreKept() throws Exception {
    FileSnapshotStore store = new FileSnapshotStore(dir.resolve("snaps"));
    assertThat(store.latest()).isEmpty();
    store.save(at(20));
    assertThat(store.latest()).hasValueSatisfying(b -> assertThat(b).isEqualTo(at(20).encoded()));
    store.save(at(3));
    store.save(at(100));
    assertThat(store.latest()).hasValueSatisfying(b -> assertThat(b).isEqualTo(at(100).encoded()));
    try (var files = Files.list(dir.resolve("snaps"))) {
      assertThat(files.map(p -> p.getFileName().toString()).sorted().toList())
          .containsExactly("00000000000000000020.snapshot", "00000000000000000100.snapshot");
    }
    assertThat(store.files()).hasSize(FileSnapshotStore.KEEP);
  }

  /**
   * Regression: {@code mesh serve} killed while writing a snapshot left its {@code .snapshot.tmp}
   * behind, and every later kill mid-write one more (three in fifteen SIGKILL cycles), each as
   * large as a snapshot.
   */
  @Test
  void aSaveCutShortByACrash_leavesATemporaryFileThatTheNextSaveDeletes() throws Exception {
    Path d = dir.resolve("snaps");
    FileSnapshotStore store = new FileSnapshotStore(d);
    store.save(at(10));
    Files.write(d.resolve("00000000000000000017.snapshot.tmp"), new byte[] {1, 2, 3});
    Files.write(d.resolve("00000000000000000019.snapshot.tmp"), new byte[] {4});
    assertThat(store.latest()).hasValueSatisfying(b -> assertThat(b).isEqualTo(at(10).encoded()));

    store.save(at(19));

    try (var files = Files.list(d)) {
      assertThat(files.map(p -> p.getFileName().toString()).sorted().toList())
          .containsExactly("00000000000000000010.snapshot", "00000000000000000019.snapshot");
    }
    assertThat(store.latest()).hasValueSatisfying(b -> assertThat(b).isEqualTo(at(19).encoded()));
  }

  @Test
  void filesNotNamedByACount_areIgnored() throws Exception {
    Path d = dir.resolve("snaps");
    FileSnapshotStore store = new FileSnapshotStore(d);
    Files.createDirectories(d);
    Files.writeString(d.resolve("99999999999999999999x.snapshot"), "x");
    Files.writeString(d.resolve("9999999999999999999.snapshot"), "x");
    Files.writeString(d.resolve("9999999999999999999a.snapshot"), "x");
    Files.writeString(d.resolve("99999999999999999999.other"), "x");
    assertThat(store.latest()).isEmpty();
    store.save(at(1));
    assertThat(store.files())
        .extracting(p -> p.getFileName().toString())
        .containsExactly("00000000000000000001.snapshot");
    assertThat(store.latest()).hasValueSatisfying(b -> assertThat(b).isEqualTo(at(1).encoded()));
  }

  @Test
  void theLatestBuffer_isAReadOnlyMapping_ofTheLatestFile() throws Exception {
    FileSnapshotStore store = new FileSnapshotStore(dir.resolve("snaps"));
    assertThat(store.latestBuffer()).isEmpty();
    store.save(at(7));
    ByteBuffer b = store.latestBuffer().orElseThrow();
    assertThat(b).isInstanceOf(MappedByteBuffer.class);
    assertThat(b.isReadOnly()).isTrue();
    assertThat(b).isEqualTo(ByteBuffer.wrap(at(7).encoded()));
  }

  @Test
  void onAFileSystemThatCannotMap_theLatestBufferAndMappingAreReadIntoMemory() throws Exception {
    // The zip file system's channels refuse map(), as some network and FUSE file systems do.
    Path saved = dir.resolve("snaps");
    new FileSnapshotStore(saved).save(at(5));
    Path zip = dir.resolve("snaps.zip");
    try (FileSystem fs =
        FileSystems.newFileSystem(URI.create("jar:" + zip.toUri()), Map.of("create", "true"))) {
      Path inZip = fs.getPath("/snaps");
      Files.createDirectories(inZip);
      for (Path f : new FileSnapshotStore(saved).files()) {
        Files.copy(f, inZip.resolve(f.getFileName().toString()));
      }
      ByteBuffer b = new FileSnapshotStore(inZip).latestBuffer().orElseThrow();
      assertThat(b).isNotInstanceOf(MappedByteBuffer.class);
      assertThat(b.isReadOnly()).isTrue();
      assertThat(b).isEqualTo(ByteBuffer.wrap(at(5).encoded()));
      // The same for a mapping to close: nothing to unmap, and the copy stays readable.
      SnapshotMapping m = new FileSnapshotStore(inZip).latestMapping().orElseThrow();
      assertThat(m.unmapsOnClose()).isFalse();
      m.close();
      assertThat(m.bytes()).isEqualTo(ByteBuffer.wrap(at(5).encoded()));
    }
  }

  @Test
  void theStoreBesideAJournal_isItsSnapshotsDirectory() {
    FileSnapshotStore s = FileSnapshotStore.beside(dir.resolve("steward.journal"));
    assertThat(s.directory()).isEqualTo(dir.resolve("steward.journal.snapshots"));
    assertThat(s.describe()).isEqualTo(s.directory().toString());
  }

  @Test
  void storageFailures_areTyped() throws Exception {
    Path file = dir.resolve("a-file");
    Files.writeString(file, "x");
    FileSnapshotStore store = new FileSnapshotStore(file.resolve("snaps"));
    assertThatThrownBy(() -> store.save(at(1)))
        .isInstanceOfSatisfying(
            SnapshotException.class,
            e -> assertThat(e.reason()).isEqualTo(SnapshotException.Reason.IO));

    Path d = dir.resolve("snaps");
    Path folder = d.resolve("00000000000000000005.snapshot");
    Files.createDirectories(folder);
    assertThatThrownBy(() -> new FileSnapshotStore(d).latest())
        .isInstanceOfSatisfying(
            SnapshotException.class,
            e -> assertThat(e.reason()).isEqualTo(SnapshotException.Reason.IO));
    // Regression: the refusal named the store's folder ("cannot read snaps: Is a directory"),
    // which is one, rather than the latest file, which should not be. Found by a tampering sweep.
    assertThatThrownBy(() -> new FileSnapshotStore(d).latestBuffer())
        .isInstanceOfSatisfying(
            SnapshotException.class,
            e ->
                assertThat(e.getMessage())
                    .contains("cannot read the latest snapshot " + folder)
                    .doesNotContain("cannot read " + d + ":"));
    assertThat(List.of(SnapshotException.Reason.values())).contains(SnapshotException.Reason.IO);
  }

  /**
   * A latest snapshot that is a named pipe, or a link to {@code /dev/zero}, is refused {@code IO}
   * naming it by every read, at once. Regression: opening the pipe waited for a writer for ever (a
   * steward's start, verify, and an archive holding the journal's lock, all hung), and {@code
   * latest()} read {@code /dev/zero} until the heap was full.
   */
  @Test
  void aLatestSnapshotThatIsAPipeOrADevice_isRefusedNamingIt_withoutWaiting() throws Exception {
    Path snaps = Files.createDirectory(dir.resolve("snaps"));
    Path pipe = snaps.resolve("00000000000000000005.snapshot");
    NamedPipes.make(pipe);
    Path zeros = Files.createDirectory(dir.resolve("zeros"));
    Path device = zeros.resolve("00000000000000000005.snapshot");
    Files.createSymbolicLink(device, Path.of("/dev/zero"));
    for (Path latest : List.of(pipe, device)) {
      FileSnapshotStore store = new FileSnapshotStore(latest.getParent());
      for (ThrowingCallable read :
          List.<ThrowingCallable>of(
              store::latest, store::latestBuffer, store::latestMapping, store::latestHeader)) {
        org.junit.jupiter.api.Assertions.assertTimeoutPreemptively(
            java.time.Duration.ofSeconds(10),
            () ->
                assertThatThrownBy(read)
                    .isInstanceOfSatisfying(
                        SnapshotException.class,
                        e -> assertThat(e.reason()).isEqualTo(SnapshotException.Reason.IO))
                    .hasMessageContaining(
                        "cannot read the latest snapshot "
                            + latest
                            + ": it is not a regular file (a pipe or a device)"));
      }
    }
  }

  /**
   * Regression: with a regular file where its folder goes, a save said only "cannot write
   * .../00000000000000000001.snapshot: <folder>" and a read "cannot read <folder>: it is not a
   * folder", neither saying what to do; {@code mesh serve} already refused this at start in clearer
   * words. Each now says what {@link FileSnapshotStore#checkFolder()} says, which the CLI shows
   * too.
   */
  @Test
  void aFileWhereTheFolderGoes_isRefusedNamingIt_andSayingWhatToDo() throws Exception {
    Path file = dir.resolve("snaps");
    Files.writeString(file, "not a folder");
    FileSnapshotStore store = new FileSnapshotStore(file);
    String said =
        "snapshot folder "
            + file
            + ": it is not a folder; remove what is there, or keep the snapshots in another folder";
    for (ThrowingCallable call :
        List.<ThrowingCallable>of(
            store::checkFolder,
            () -> store.save(at(1)),
            store::latest,
            store::latestBuffer,
            store::latestMapping,
            store::claim)) {
      assertThatThrownBy(call)
          .isInstanceOfSatisfying(
              SnapshotException.class,
              e -> {
                assertThat(e.reason()).isEqualTo(SnapshotException.Reason.IO);
                assertThat(e.detail()).isEqualTo(said);
                assertThat(e.getMessage()).endsWith(said);
              });
    }
    assertThat(file).hasContent("not a folder");
    // A folder not made yet is no fault: the first save makes it.
    new FileSnapshotStore(dir.resolve("later")).checkFolder();
  }

  @Test
  void manySnapshots_keepTheTwoCoveringMost_whateverTheOrderWritten() throws Exception {
    FileSnapshotStore store = new FileSnapshotStore(dir.resolve("many"));
    long[] counts = {40, 7, 93, 12, 65, 3, 88, 21, 54, 30, 71, 9};
    for (long c : counts) {
      store.save(at(c));
    }
    assertThat(store.files())
        .extracting(f -> f.getFileName().toString())
        .containsExactly("00000000000000000088.snapshot", "00000000000000000093.snapshot");
    assertThat(store.latest()).hasValueSatisfying(b -> assertThat(b).isEqualTo(at(93).encoded()));
  }

  @Test
  void anOldSnapshotThatCannotBeDeleted_failsNoSave_andGoesOnANextOne() throws Exception {
    Path d = dir.resolve("snaps");
    FileSnapshotStore store = new FileSnapshotStore(d);
    // An old "snapshot" that deleteIfExists refuses (a directory with a file in it), as a platform
    // that will not delete a mapped file would.
    Path stuck = d.resolve("00000000000000000001.snapshot");
    Files.createDirectories(stuck);
    Files.writeString(stuck.resolve("x"), "x");
    store.save(at(5));
    store.save(at(6));
    assertThat(store.latest()).hasValueSatisfying(b -> assertThat(b).isEqualTo(at(6).encoded()));
    assertThat(Files.exists(stuck)).isTrue();
    Files.delete(stuck.resolve("x"));
    store.save(at(7));
    assertThat(store.files())
        .extracting(p -> p.getFileName().toString())
        .containsExactly("00000000000000000006.snapshot", "00000000000000000007.snapshot");
  }

  /**
   * Regression: {@code mesh journal verify} beside a running steward that snapshots often could
   * fail with "cannot read ...: no such file" when the steward saved twice between verify listing
   * the snapshots and opening the latest (each save deletes all but the newest two). A second store
   * on the same directory stands in for the other process; the reader must always get a whole
   * snapshot.
   */
  @Test
  void theLatestBuffer_readWhileAnotherProcessSavesAndDeletes_isAlwaysAWholeSnapshot()
      throws Exception {
    Path snaps = dir.resolve("snaps");
    FileSnapshotStore steward = new FileSnapshotStore(snaps, (ch, path, meta) -> {});
    FileSnapshotStore verifier = new FileSnapshotStore(snaps, (ch, path, meta) -> {});
    steward.save(at(1));
    AtomicBoolean done = new AtomicBoolean();
    Thread saving =
        new Thread(
            () -> {
              try {
                for (long n = 2; n < 1500; n++) {
                  steward.save(at(n));
                }
              } catch (SnapshotException e) {
                throw new IllegalStateException(e);
              } finally {
                done.set(true);
              }
            });
    saving.start();
    int reads = 0;
    try {
      while (!done.get()) {
        Optional<ByteBuffer> latest = verifier.latestBuffer();
        assertThat(latest).isPresent();
        Snapshot.openAsNamed(latest.get());
        reads++;
      }
    } finally {
      saving.join();
    }
    assertThat(reads).isPositive();
  }

  /**
   * Regression: a save that failed left its part written {@code .snapshot.tmp} until some later
   * save succeeded, holding on to the space the journal needed, one more file for each failed save
   * at a new count. Found with {@code mesh serve} stopped on a full tmpfs: the closing snapshot was
   * refused "No space left on device" and its {@code 00000000000000000011.snapshot.tmp} stayed.
   */
  @Test
  void aSaveThatFails_removesItsTemporaryFile_andTheLatestStaysTheOneBefore() throws Exception {
    Path d = dir.resolve("snaps");
    new FileSnapshotStore(d).save(at(10));
    Forcer full =
        (channel, file, metaData) -> {
          throw new java.io.IOException("No space left on device");
        };
    FileSnapshotStore failing = new FileSnapshotStore(d, full);
    assertThatThrownBy(() -> failing.save(at(20)))
        .isInstanceOfSatisfying(
            SnapshotException.class,
            e -> {
              assertThat(e.reason()).isEqualTo(SnapshotException.Reason.IO);
              assertThat(e.getMessage())
                  .contains("00000000000000000020.snapshot")
                  .contains("No space left on device");
            });
    try (var files = Files.list(d)) {
      assertThat(files.map(p -> p.getFileName().toString()).toList())
          .containsExactly("00000000000000000010.snapshot");
    }
    assertThat(failing.latest()).hasValueSatisfying(b -> assertThat(b).isEqualTo(at(10).encoded()));
  }

  /**
   * A snapshot larger than the store reads back ({@link Snapshot#MAX_BYTES}: 2 GiB, about 22
   * million receipts; made small here) was written anyway and became the latest, which no start
   * could then read: refused {@code TOO_LARGE} before a byte is written, the one before kept.
   */
  @Test
  void aSaveLargerThanTheStoreReadsBack_isRefusedTooLarge_andTheLatestStaysTheOneBefore()
      throws Exception {
    Path d = dir.resolve("snaps");
    int fits = at(10).encoded().length;
    FileSnapshotStore capped = new FileSnapshotStore(d, Forcer.OS, fits);
    assertThat(capped.maxBytes()).isEqualTo(fits);
    assertThat(new FileSnapshotStore(d).maxBytes()).isEqualTo(Snapshot.MAX_BYTES);
    capped.save(at(10));
    Snapshot larger = at(10_000_000_000L); // its count takes 8 more bytes
    assertThat(larger.encoded().length).isGreaterThan(fits);
    assertThatThrownBy(() -> capped.save(larger))
        .isInstanceOfSatisfying(
            SnapshotException.class,
            e -> {
              assertThat(e.reason()).isEqualTo(SnapshotException.Reason.TOO_LARGE);
              assertThat(e.getMessage())
                  .contains("record 10000000000")
                  .contains(larger.encoded().length + " bytes, more than the " + fits);
            });
    try (var files = Files.list(d)) {
      assertThat(files.map(p -> p.getFileName().toString()).toList())
          .containsExactly("00000000000000000010.snapshot");
    }
    assertThat(capped.latest()).hasValueSatisfying(b -> assertThat(b).isEqualTo(at(10).encoded()));
  }

  /**
   * A file too large to read (one an older version saved) is refused as such, naming it, by each
   * way of reading it: a start reads the latest mapping.
   */
  @Test
  void aLatestFileLargerThanTheStoreReads_isRefusedTooLarge_namingIt() throws Exception {
    Path d = dir.resolve("snaps");
    new FileSnapshotStore(d).save(at(10_000_000_000L));
    FileSnapshotStore capped = new FileSnapshotStore(d, Forcer.OS, at(10).encoded().length);
    for (ThrowingCallable read :
        List.<ThrowingCallable>of(capped::latestBuffer, capped::latest, capped::latestMapping)) {
      assertThatThrownBy(read)
          .isInstanceOfSatisfying(
              SnapshotException.class,
              e -> {
                assertThat(e.reason()).isEqualTo(SnapshotException.Reason.TOO_LARGE);
                assertThat(e.getMessage()).contains("00000000010000000000.snapshot");
              });
    }
  }

  /**
   * The header a start falls back on when the latest file is too large to read (SPEC.md §60.8,
   * "Size") is read from a file of any size, skipping what comes before it, and a file cut inside
   * it is refused {@code MALFORMED} rather than read as some other position.
   */
  @Test
  void theLatestHeader_isReadPastTheSizeLimit_andACutFileIsMalformed() throws Exception {
    Path d = dir.resolve("snaps");
    Snapshot big = at(10_000_000_000L);
    new FileSnapshotStore(d).save(big);
    FileSnapshotStore capped = new FileSnapshotStore(d, Forcer.OS, 16);
    assertThat(capped.latestHeader()).contains(big.header());
    Path file = d.resolve("00000000010000000000.snapshot");
    byte[] whole = Files.readAllBytes(file);
    Files.write(file, java.util.Arrays.copyOf(whole, whole.length / 2));
    assertThatThrownBy(capped::latestHeader)
        .isInstanceOfSatisfying(
            SnapshotException.class,
            e -> assertThat(e.reason()).isEqualTo(SnapshotException.Reason.MALFORMED))
        .hasMessageContaining("its header cannot be read");
  }
}
