package org.meshjava.journal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A hostile snapshot file larger than any the store saves, swapped in or grown under the latest
 * snapshot's name between the read's size check and its read. Regression: {@link
 * FileSnapshotStore#latest()} checked the size by name and then read the file by name again, whole,
 * so a planted file of any size was read into memory past the limit (a sparse one of a few GB
 * filled the heap). The size is now checked on the descriptor that is read, and nothing past it is
 * read.
 */
class SnapshotReadBoundTest {
  private static final long MAX = 64;
  private static final long HUGE = 1L << 20; // sparse: nothing is written

  @TempDir Path dir;

  /** A store capped at {@link #MAX} bytes whose read runs {@code seam} after its size check. */
  private FileSnapshotStore store(FileSnapshotStore.SizeChecked seam) {
    return new FileSnapshotStore(dir, Forcer.OS, MAX, seam);
  }

  private Path latest() throws Exception {
    return Files.write(dir.resolve("00000000000000000007.snapshot"), new byte[10]);
  }

  @Test
  void aHugeFileRenamedOverTheLatestAfterItsSizeCheck_isNotRead() throws Exception {
    Path latest = latest();
    Path huge = dir.resolve("planted");
    try (RandomAccessFile f = new RandomAccessFile(huge.toFile(), "rw")) {
      f.setLength(HUGE);
    }
    Optional<byte[]> read =
        store(file -> Files.move(huge, file, StandardCopyOption.REPLACE_EXISTING)).latest();
    assertThat(read).isPresent();
    assertThat(read.get().length).as("bytes read").isEqualTo(10);
    assertThat(Files.size(latest)).isEqualTo(HUGE);
  }

  @Test
  void theLatestGrownInPlaceAfterItsSizeCheck_isRefusedTyped() throws Exception {
    latest();
    SnapshotException e =
        catchThrowableOfType(
            SnapshotException.class,
            () ->
                store(
                        file -> {
                          try (RandomAccessFile f = new RandomAccessFile(file.toFile(), "rw")) {
                            f.setLength(HUGE);
                          }
                        })
                    .latest());
    assertThat(e).isNotNull();
    assertThat(e.reason()).isEqualTo(SnapshotException.Reason.IO);
    assertThat(e.detail()).contains("its size changed while it was read");
  }
}
