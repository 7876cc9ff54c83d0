package org.meshjava.fuzz;

import com.code_intelligence.jazzer.junit.FuzzTest;
import java.io.IOException;
import java.util.Arrays;
import java.util.Optional;
import org.meshjava.conformance.pack.PackGroup;

/**
 * A conformance pack's group file, as {@code mesh conformance} and the pack runner read one handed
 * to them (a pack from elsewhere, or one edited by hand): its only refusal is an {@link
 * IOException} naming the file. Read from bytes, as {@link PackGroup#read(java.nio.file.Path)}
 * reads a file's, so that no input touches the disk.
 */
class PackFuzzTest {
  @FuzzTest(maxDuration = "60s")
  void group(byte[] input) throws IOException {
    Optional<PackGroup> group =
        Hostile.read(() -> PackGroup.read(input, "fuzzed.json"), IOException.class);
    if (group.isEmpty()) {
      return;
    }
    // A group read, written and read again is the group written: a pack survives being re-saved.
    byte[] written = group.get().toBytes();
    if (!Arrays.equals(PackGroup.read(written, "written.json").toBytes(), written)) {
      throw new AssertionError("a group written and read back is written differently");
    }
  }
}
