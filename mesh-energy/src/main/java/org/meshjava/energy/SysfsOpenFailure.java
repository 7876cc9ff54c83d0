package org.meshjava.energy;

import java.nio.file.AccessDeniedException;
import java.nio.file.FileSystemException;
import java.nio.file.FileSystemLoopException;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;
import java.nio.file.Path;

/**
 * Why a powercap file could not be opened, and what its counter is then reported as (§3.3).
 * Discovery's advice on granting read access (a udev rule, energy_uj root-only since CVE-2020-8694)
 * helps only where the open was refused with EACCES ({@link #DENIED}): by the file's permissions,
 * or by a mandatory access control policy (SELinux, AppArmor), which refuses with the same code; a
 * file that is not there, a path that leads to no file, a device gone and an EPERM refusal each
 * need another remedy, and each is named as what it is. Stateless.
 *
 * <p>The exception's type tells the kind where the JDK gives one ({@link AccessDeniedException} for
 * EACCES, {@link NoSuchFileException} for ENOENT, {@link NotDirectoryException} for ENOTDIR when a
 * folder is listed, {@link FileSystemLoopException} from a file tree walk). Opening a file gives a
 * plain {@link FileSystemException} for ELOOP, ENOTDIR, EPERM, ENODEV and ENXIO, whose reason is
 * then the only source: for ELOOP the JDK appends words of its own to the system's, which stay
 * English whatever the locale; for the others the reason is the C library's {@code strerror} alone,
 * so under a locale that translates it they fall to {@link #OTHER}, which still keeps the access
 * advice away. Where the file was opened through FFM ({@link ErrnoSysfsReader}), the failure
 * carries its {@code errno} ({@link SysfsErrnoException}) and is told by that number alone.
 */
enum SysfsOpenFailure {
  /**
   * Refused with EACCES: the file's permissions (energy_uj is root-only since the CVE-2020-8694
   * fix), or SELinux or AppArmor, whose denials answer the same code. The one case a udev rule
   * helps, unless the policy is what refused.
   */
  DENIED(
      CounterIssue.UNREADABLE,
      "this process may not read it (EACCES): either its permissions refuse it (energy_uj has"
          + " been root-only since the 2020 fix for CVE-2020-8694), which a udev rule or tmpfiles"
          + " entry granting a group read fixes, or a mandatory access control policy (SELinux,"
          + " AppArmor) refused it, SELinux or AppArmor answering with the same code, which must"
          + " then allow the read (its audit log names the denial)"),
  /**
   * Refused with EPERM, which neither file permissions nor SELinux or AppArmor answer to an open
   * for reading (they answer EACCES): a check of this process's privilege refuses it, most often a
   * seccomp filter such as container runtimes install, whose refusals default to EPERM.
   */
  NOT_PERMITTED(
      CounterIssue.UNREADABLE,
      "opening it is not permitted (EPERM), which is a security policy's refusal by privilege (a"
          + " seccomp filter, as container runtimes install), not the file's permissions nor"
          + " SELinux or AppArmor, which refuse with EACCES: granting read access will not help;"
          + " check the seccomp profile and privileges this process runs under"),
  /** The file is not there. */
  MISSING(CounterIssue.NOT_PRESENT, "it does not exist"),
  /**
   * The device behind the file is gone (ENODEV, ENXIO): sysfs answers an open with ENODEV once the
   * kernel has begun removing the file's object (kernfs deactivates it before unlinking it), as
   * when a driver is unbound or a zone unregistered; ENXIO says likewise that no device answers.
   * The counter is not there any more, not refused.
   */
  GONE(
      CounterIssue.NOT_PRESENT,
      "the device behind it is gone (ENODEV or ENXIO): its zone is being removed, or its driver"
          + " was unbound, so no counter is there; no access can help"),
  /** A symbolic link on the path leads back to itself: the path names no file at all. */
  LINK_LOOP(
      CounterIssue.NOT_PRESENT,
      "a symbolic link on its path loops (ELOOP), so it names no file: the powercap root given to"
          + " discovery, or /sys as mounted into this process, is not the kernel's tree; no"
          + " access can help, point discovery at /sys/class/powercap or fix the mount"),
  /** A part of the path that should be a folder is a file: no powercap zone is there. */
  NOT_A_FOLDER(
      CounterIssue.NOT_PRESENT,
      "a part of its path that should be a folder is not one (ENOTDIR), so no powercap zone is"
          + " there: the powercap root given to discovery, or /sys as mounted into this process, is"
          + " not the kernel's tree; no access can help"),
  /**
   * Any other failure to open (a reason the JDK gives only as translated text): not the file's
   * permissions as far as can be told, so not given the access advice.
   */
  OTHER(
      CounterIssue.UNREADABLE,
      "it cannot be opened, and not because of its permissions as far as this process can tell:"
          + " granting read access may not help; check how /sys is mounted into this process and"
          + " any security policy over it");

  /**
   * The words the JDK adds to the system's own for ELOOP when it opens a file (checked on JDK 25's
   * {@code UnixException}); English whatever the locale, unlike the system's words before them.
   */
  private static final String LOOP_REASON_TAIL = "or unable to access attributes of symbolic link";

  /** The C library's words for ENOTDIR on an English locale; only where no type tells. */
  private static final String NOT_A_DIRECTORY_REASON = "Not a directory";

  /** The C library's words for EPERM on an English locale; no JDK type tells it. */
  private static final String NOT_PERMITTED_REASON = "Operation not permitted";

  /** The C library's words for ENODEV on an English locale; no JDK type tells it. */
  private static final String NO_DEVICE_REASON = "No such device";

  /** The C library's words for ENXIO on an English locale; no JDK type tells it. */
  private static final String NO_DEVICE_OR_ADDRESS_REASON = "No such device or address";

  /**
   * {@link #DENIED}'s words for a zone file other than {@code energy_uj} ({@code name}, {@code
   * max_energy_range_uj}), which every user may read on a stock kernel: the access advice, which is
   * energy_uj's, would send the operator to the wrong file.
   */
  private static final String DENIED_WORLD_READABLE =
      "this process may not read it (EACCES), though every user may read it on a stock kernel, so"
          + " its permissions were changed or /sys is mounted into this process otherwise, or a"
          + " mandatory access control policy (SELinux, AppArmor) refused it, which must then allow"
          + " the read (its audit log names the denial)";

  /** How the detail of every failure to open begins. */
  static final String CANNOT_OPEN = "cannot open ";

  private final CounterIssue issue;
  private final String why;

  SysfsOpenFailure(CounterIssue issue, String why) {
    this.issue = issue;
    this.why = why;
  }

  /** What {@code e}, thrown opening a powercap file or listing a folder, says happened. */
  static SysfsOpenFailure of(FileSystemException e) {
    if (e instanceof AccessDeniedException) {
      return DENIED;
    }
    if (e instanceof NoSuchFileException) {
      return MISSING;
    }
    if (e instanceof NotDirectoryException) {
      return NOT_A_FOLDER;
    }
    if (e instanceof FileSystemLoopException) {
      return LINK_LOOP;
    }
    if (e instanceof SysfsErrnoException exact) {
      return ofErrno(exact.errno());
    }
    String reason = e.getReason();
    if (reason == null) {
      return OTHER;
    }
    if (reason.endsWith(LOOP_REASON_TAIL)) {
      return LINK_LOOP;
    }
    return switch (reason) {
      case NOT_A_DIRECTORY_REASON -> NOT_A_FOLDER;
      case NOT_PERMITTED_REASON -> NOT_PERMITTED;
      case NO_DEVICE_REASON, NO_DEVICE_OR_ADDRESS_REASON -> GONE;
      default -> OTHER;
    };
  }

  /** What an open that failed with {@code errno} (read exactly, not as words) says happened. */
  private static SysfsOpenFailure ofErrno(int errno) {
    return switch (errno) {
      case ErrnoSysfsReader.EACCES -> DENIED;
      case ErrnoSysfsReader.ENOENT -> MISSING;
      case ErrnoSysfsReader.EPERM -> NOT_PERMITTED;
      case ErrnoSysfsReader.ELOOP -> LINK_LOOP;
      case ErrnoSysfsReader.ENOTDIR -> NOT_A_FOLDER;
      case ErrnoSysfsReader.ENODEV, ErrnoSysfsReader.ENXIO -> GONE;
      default -> OTHER;
    };
  }

  /** The reason code a counter whose file failed so is reported with. */
  CounterIssue issue() {
    return issue;
  }

  /**
   * The status detail for {@code file}, the zone's {@code which}, failed so with {@code e}: what
   * happened and what helps. The one place a failure to open is put into words, whichever file it
   * was and whichever reader met it (an EACCES was said by each caller in words of its own before,
   * and {@link #DENIED}'s never reached a status).
   */
  String detail(PowercapRefusal.File which, Path file, FileSystemException e) {
    String said =
        this == DENIED && which != PowercapRefusal.File.ENERGY_UJ ? DENIED_WORLD_READABLE : why;
    return CANNOT_OPEN + file + ": " + said + " (" + e + ")";
  }
}
