package org.meshjava.energy;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.AccessDeniedException;
import java.nio.file.FileSystemException;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * What each code a powercap open fails with is reported as, and the advice its words carry: EACCES
 * is refused by the file's permissions or by SELinux or AppArmor (a udev rule, or that policy);
 * EPERM by a check of privilege such as a seccomp filter, never by those two; ENODEV and ENXIO say
 * the device is gone, so the counter is not there rather than refused.
 */
class SysfsOpenFailureTest {
  private static final Path FILE = Path.of("/sys/class/powercap/intel-rapl:0/energy_uj");

  private static FileSystemException failed(String reason) {
    return new FileSystemException(FILE.toString(), null, reason);
  }

  @Test
  void eacces_isDenied_andItsAdviceNamesTheUdevRuleAndTheMacPolicy() {
    AccessDeniedException e = new AccessDeniedException(FILE.toString());
    SysfsOpenFailure failure = SysfsOpenFailure.of(e);

    assertThat(failure).isEqualTo(SysfsOpenFailure.DENIED);
    assertThat(failure.issue()).isEqualTo(CounterIssue.UNREADABLE);
    assertThat(failure.detail(PowercapRefusal.File.ENERGY_UJ, FILE, e))
        .contains("EACCES", "udev rule", "SELinux, AppArmor", "allow the read");
  }

  /**
   * A zone's {@code name} or {@code max_energy_range_uj} denied is said as denied, without the udev
   * rule, which grants energy_uj's read: every user may read these on a stock kernel.
   */
  @Test
  void eacces_ofAFileEveryUserMayRead_isDenied_withoutTheUdevRule() {
    AccessDeniedException e = new AccessDeniedException(FILE.toString());
    for (PowercapRefusal.File which :
        new PowercapRefusal.File[] {
          PowercapRefusal.File.NAME, PowercapRefusal.File.MAX_ENERGY_RANGE_UJ
        }) {
      assertThat(SysfsOpenFailure.of(e).detail(which, FILE, e))
          .as(which.said())
          .contains("EACCES", "every user may read it", "allow the read")
          .doesNotContain("udev")
          .doesNotContain("CVE-2020-8694");
    }
  }

  /**
   * Regression: EPERM's words named SELinux and AppArmor (and kernel lockdown) as its sources; both
   * deny an open with EACCES, so an operator sent to them by an EPERM looked in the wrong place.
   */
  @Test
  void eperm_isNamedAsAPrivilegeRefusal_notAsSelinuxOrAppArmor() {
    FileSystemException e = failed("Operation not permitted");
    SysfsOpenFailure failure = SysfsOpenFailure.of(e);

    assertThat(failure).isEqualTo(SysfsOpenFailure.NOT_PERMITTED);
    assertThat(failure.issue()).isEqualTo(CounterIssue.UNREADABLE);
    assertThat(failure.detail(PowercapRefusal.File.ENERGY_UJ, FILE, e))
        .contains("EPERM", "seccomp filter", "SELinux or AppArmor, which refuse with EACCES")
        .doesNotContain("lockdown")
        .doesNotContain("(a seccomp filter, SELinux");
  }

  /**
   * Regression: an open answered ENODEV (sysfs's answer once the kernel is removing the file's
   * object) or ENXIO was UNREADABLE, a refusal, though no counter is there to refuse.
   */
  @Test
  void enodevAndEnxio_areADeviceGone_notPresent_withoutAccessAdvice() {
    for (String reason : new String[] {"No such device", "No such device or address"}) {
      FileSystemException e = failed(reason);
      SysfsOpenFailure failure = SysfsOpenFailure.of(e);

      assertThat(failure).as(reason).isEqualTo(SysfsOpenFailure.GONE);
      assertThat(failure.issue()).as(reason).isEqualTo(CounterIssue.NOT_PRESENT);
      assertThat(failure.detail(PowercapRefusal.File.ENERGY_UJ, FILE, e))
          .contains("ENODEV or ENXIO", "gone", "no access can help")
          .doesNotContain("udev");
    }
  }

  @Test
  void aReasonInAnotherLanguage_isOther_withoutTheUdevRule() {
    FileSystemException e = failed("Aucun périphérique de ce type");

    assertThat(SysfsOpenFailure.of(e)).isEqualTo(SysfsOpenFailure.OTHER);
    assertThat(SysfsOpenFailure.of(e).detail(PowercapRefusal.File.ENERGY_UJ, FILE, e))
        .doesNotContain("udev");
  }
}
