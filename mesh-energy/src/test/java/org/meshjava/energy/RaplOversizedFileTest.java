package org.meshjava.energy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.meshjava.core.EnergyDomain;

/**
 * An {@code energy_uj} that holds more than any sysfs attribute can (a root that is not sysfs, a
 * file replaced) is a failed read, named: read whole, it took memory for all of it, and one past 2
 * GiB threw an {@link OutOfMemoryError} into the serve that read it. The file is sparse: 3 GiB of
 * zero bytes that take no disk.
 */
class RaplOversizedFileTest {
  @TempDir Path root;

  @Test
  void anEnergyFileLargerThanAnyAttribute_isAFailedRead_notAnError() throws IOException {
    Path energy = Files.createFile(root.resolve("energy_uj"));
    try (RandomAccessFile f = new RandomAccessFile(energy.toFile(), "rw")) {
      f.setLength(3L << 30);
    }
    RaplChannel zone =
        new RaplChannel(
            "package-0",
            EnergyDomain.cpuPackage(0),
            energy,
            262_143_328_850L,
            SysfsReader.FILES,
            new FakeClock());

    Throwable thrown = catchThrowable(zone::readTotalUj);

    assertThat(thrown).isInstanceOf(CounterException.class);
    CounterException e = (CounterException) thrown;
    assertThat(e.issue()).isEqualTo(CounterIssue.READ_FAILED);
    assertThat(e.getMessage()).contains("holds more than 65536 bytes: not a sysfs attribute");
  }
}
