package org.meshjava.fuzz;

import com.code_intelligence.jazzer.junit.FuzzTest;
import java.nio.ByteBuffer;
import org.meshjava.journal.JournalException;
import org.meshjava.journal.SnapshotException;
import org.meshjava.journal.internal.JournalFile;
import org.meshjava.journal.internal.SnapshotHeaderReader;

/** A journal file's bytes and a snapshot's header, as a tampering operator could leave them. */
class JournalFuzzTest {
  @FuzzTest(maxDuration = "20s")
  void journal(byte[] input) {
    Hostile.only(() -> JournalFile.parse(input), JournalException.class);
  }

  @FuzzTest(maxDuration = "20s")
  void snapshotHeader(byte[] input) {
    Hostile.only(
        () ->
            SnapshotHeaderReader.read(
                input.length,
                (ByteBuffer dst, long at) -> {
                  if (at >= input.length) {
                    return -1;
                  }
                  int n = (int) Math.min(dst.remaining(), input.length - at);
                  dst.put(input, (int) at, n);
                  return n;
                }),
        SnapshotException.class);
  }
}
