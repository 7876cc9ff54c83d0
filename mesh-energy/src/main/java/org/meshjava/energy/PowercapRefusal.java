package org.meshjava.energy;

import java.util.Objects;

/**
 * A RAPL file or folder that exists but could not be opened ({@link CounterIssue#UNREADABLE},
 * §3.3), as discovery's advice sorts it: the counter, which file failed, and whether the refusal
 * was EACCES, the one a udev rule can answer. Recorded where the failure is caught, beside the
 * counter's status, so the advice is told from what failed and never from the status's words, which
 * carry the powercap root's path (any text at all). Immutable.
 *
 * @param counter the counter's name in its status
 * @param file which of the zone's files, or a folder's listing, could not be opened
 * @param accessDenied whether the open was refused with EACCES ({@link SysfsOpenFailure#DENIED})
 */
record PowercapRefusal(String counter, PowercapRefusal.File file, boolean accessDenied) {

  /** Validates. */
  PowercapRefusal {
    Objects.requireNonNull(counter, "counter");
    Objects.requireNonNull(file, "file");
  }

  /** What could not be opened. */
  enum File {
    /** The zone's counter itself, root-only since the CVE-2020-8694 fix. */
    ENERGY_UJ("energy_uj"),
    /** The zone's range, which every user may read on a stock kernel. */
    MAX_ENERGY_RANGE_UJ(RaplDiscovery.MAX_ENERGY_RANGE_UJ),
    /** The zone's name, which every user may read on a stock kernel. */
    NAME("name"),
    /** A folder (the powercap root, or a zone's) that could not be listed. */
    FOLDER("folder listing");

    private final String said;

    File(String said) {
      this.said = said;
    }

    /** How discovery's advice names it. */
    String said() {
      return said;
    }
  }
}
