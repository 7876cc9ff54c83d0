package org.meshjava.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;
import static org.meshjava.cli.MeshCommandTest.mesh;

import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.meshjava.cli.FileJournalTamperingTest.History;
import org.meshjava.cli.MeshCommandTest.Run;
import org.meshjava.core.crypto.SigningKey;
import org.meshjava.journal.FileJournal;

/**
 * {@code mesh journal verify} takes no lock, so an archive may move the journal's files between its
 * reads (SPEC.md 60.8, "Verifying"): here between its first look at the live file, which began at
 * record 0, and its read of the records, by which time the live file begins later and the segment
 * holds the rest. Each state is whole, so verify must pass; it reads the files again when a read
 * failed while they changed. The archive runs while verify waits for its {@code --key}, given as
 * FIFOs that this test writes the key into, the second time once it has archived.
 */
class JournalVerifyDuringArchiveTest {
  @TempDir Path tmp;

  @Test
  void anArchiveBetweenVerifysReads_doesNotFailIt() throws Exception {
    assumeTrue(!System.getProperty("os.name", "").startsWith("Windows"), "FIFOs are POSIX");
    History h = new History(tmp, SigningKey.generate(), "steward").serve(6, "granted");
    assertThat(FileJournal.firstSequence(h.journal)).isZero();
    Path key = FifoInputTest.fifo(tmp.resolve("key.fifo"));
    byte[] seed = Files.readAllBytes(h.keyFile);
    AtomicReference<Run> archive = new AtomicReference<>();
    Thread writer =
        Thread.ofPlatform()
            .start(
                () -> {
                  try {
                    // Verify reads --key first to name the steward, before it looks at the live
                    // file; that read gets the key from this FIFO, which a second FIFO replaces
                    // before the read ends, so that verify's next read opens that one.
                    try (OutputStream o = Files.newOutputStream(key)) {
                      Path next = FifoInputTest.fifo(tmp.resolve("key.next"));
                      Files.move(next, key, StandardCopyOption.REPLACE_EXISTING);
                      o.write(seed);
                    }
                    // Its next read comes after its first look at the live file: the archive runs
                    // then, and the key file takes the FIFO's place for every later read.
                    try (OutputStream o = Files.newOutputStream(key)) {
                      archive.set(mesh("journal", "archive", h.journal.toString()));
                      Files.move(h.keyFile, key, StandardCopyOption.REPLACE_EXISTING);
                      o.write(seed);
                    }
                  } catch (Exception e) {
                    throw new IllegalStateException(e);
                  }
                });
    Run verify = mesh("journal", "verify", h.journal.toString(), "--key", key.toString());
    writer.join();

    assertThat(archive.get().code()).as(archive.get().err()).isZero();
    assertThat(FileJournal.firstSequence(h.journal)).isPositive();
    assertThat(verify.code()).as(verify.err()).isZero();
    assertThat(verify.out()).contains("form one chain");
  }
}
