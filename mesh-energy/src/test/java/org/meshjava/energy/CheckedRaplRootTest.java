package org.meshjava.energy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A RAPL root an operator names is checked when it is set: a folder that is not there, or holds no
 * {@code intel-rapl:*} zone, is refused naming the folder, rather than left to discovery, which
 * would grade every figure {@code Estimator} for good.
 */
class CheckedRaplRootTest {
  @TempDir Path tmp;

  @Test
  void aFolderHoldingAZone_isTheRoot() throws Exception {
    Files.createDirectories(tmp.resolve("intel-rapl:0"));

    assertThat(DiscoveryOptions.defaults().withCheckedRaplRoot(tmp).raplRoot()).contains(tmp);
  }

  @Test
  void aPathThatIsNoFolder_isRefusedNamingIt() throws Exception {
    Path file = Files.writeString(tmp.resolve("energy_uj"), "5\n");
    for (Path notAFolder : new Path[] {tmp.resolve("missing"), file}) {
      assertThatThrownBy(() -> DiscoveryOptions.defaults().withCheckedRaplRoot(notAFolder))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageStartingWith(notAFolder + " is not a folder")
          .hasMessageContaining("/sys/class/powercap");
    }
  }

  /**
   * A zone itself, the folder above the tree, or a tree holding only zones that are not read (the
   * MMIO republication of the package, the control type's own folder) are no root.
   */
  @Test
  void aFolderHoldingNoZone_isRefusedSayingWhichFolderToName() throws Exception {
    Path zone = Files.createDirectories(tmp.resolve("powercap/intel-rapl:0"));
    Files.writeString(zone.resolve("energy_uj"), "5\n");
    Path mmioOnly = Files.createDirectories(tmp.resolve("mmio/intel-rapl-mmio:0")).getParent();
    Files.createDirectories(mmioOnly.resolve("intel-rapl"));
    for (Path noRoot : new Path[] {zone, tmp, mmioOnly}) {
      assertThatThrownBy(() -> DiscoveryOptions.defaults().withCheckedRaplRoot(noRoot))
          .as(noRoot.toString())
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageStartingWith(noRoot + " holds no intel-rapl:* zone")
          .hasMessageContaining("the one holding intel-rapl:0");
    }
  }
}
