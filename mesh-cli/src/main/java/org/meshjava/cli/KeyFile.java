package org.meshjava.cli;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.EnumSet;
import java.util.HexFormat;
import java.util.Optional;
import java.util.Set;
import org.meshjava.core.crypto.SigningKey;

/**
 * A key file: the 32-byte Ed25519 seed as 64 lowercase hex digits and a newline, readable by its
 * owner only (mode 0600 where the filesystem has POSIX permissions). The {@code did:key} is derived
 * from it, never stored.
 */
final class KeyFile {
  private KeyFile() {}

  /**
   * Reads the key at {@code path} for signing, warning on {@code warnings} when the file is open to
   * other users ({@link #exposure}).
   */
  static SigningKey read(Path path, PrintWriter warnings) throws CliException {
    SigningKey key = read(path);
    exposure(path).ifPresent(warnings::println);
    return key;
  }

  /**
   * The warning for a key file that grants any permission to its group or to others, where the
   * filesystem has POSIX permissions: whoever can read the seed signs as its owner. A warning, not
   * a refusal, because some deployments can only mount secrets group- or world-readable.
   */
  static Optional<String> exposure(Path path) {
    Set<PosixFilePermission> mode;
    try {
      mode = Files.getPosixFilePermissions(path);
    } catch (UnsupportedOperationException | IOException e) {
      return Optional.empty();
    }
    Set<PosixFilePermission> open = EnumSet.copyOf(mode);
    open.removeAll(EnumSet.of(PosixFilePermission.OWNER_READ, PosixFilePermission.OWNER_WRITE));
    open.remove(PosixFilePermission.OWNER_EXECUTE);
    if (open.isEmpty()) {
      return Optional.empty();
    }
    return Optional.of(
        String.format(
            "warning: key file %1$s is open to other users (mode %2$s); whoever can read it signs"
                + " as this key: chmod 600 %1$s",
            path, PosixFilePermissions.toString(mode)));
  }

  static SigningKey read(Path path) throws CliException {
    String text;
    try {
      text = UserFile.readText(path, "key file");
    } catch (CliException e) {
      if (e.getCause() instanceof java.nio.file.NoSuchFileException) {
        // A first run that follows the README's tour, or a mistyped name: say how a key is made.
        throw new CliException(
            e.getMessage() + " (make one there with: mesh key generate --out " + path + ")", e);
      }
      throw e;
    }
    try {
      return SigningKey.fromSeedHex(text);
    } catch (IllegalArgumentException e) {
      String why = FileKind.otherThan(FileKind.KEY, text).orElse(e.getMessage());
      throw new CliException("key file " + path + " does not hold a key: " + why, e);
    }
  }

  /**
   * Writes the key to {@code path}, readable by its owner only. The seed goes to a file beside it
   * first, renamed onto {@code path} once on disk: a key overwritten with {@code overwrite} is
   * replaced whole or not at all (never deleted before its successor is written), and a write cut
   * short leaves no empty key file behind.
   *
   * @throws CliException if {@code path} is a folder, exists and {@code overwrite} is false, or
   *     cannot be written
   */
  static void write(Path path, SigningKey key, boolean overwrite) throws CliException {
    if (Files.isDirectory(path)) {
      throw new CliException(path + " is a folder; name the key file to write");
    }
    UserFile.refuseToOverwrite(path, "a key", overwrite);
    byte[] text =
        (HexFormat.of().formatHex(key.exportSeed()) + "\n").getBytes(StandardCharsets.US_ASCII);
    FileAttribute<?>[] ownerOnly;
    try {
      // Only a root has no folder, and a root is a folder, refused above.
      Path parent = java.util.Objects.requireNonNull(path.toAbsolutePath().getParent(), "folder");
      org.meshjava.journal.internal.Folders.create(parent);
      ownerOnly =
          Files.getFileStore(parent).supportsFileAttributeView("posix")
              ? new FileAttribute<?>[] {
                PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------"))
              }
              : new FileAttribute<?>[0];
    } catch (IOException e) {
      throw new CliException("cannot write key file " + path + ": " + UserFile.reason(e), e);
    }
    try {
      UserFile.writeWhole(path, text, overwrite, ownerOnly);
    } catch (FileAlreadyExistsException e) {
      throw UserFile.overwriteRefused(path, "a key", e);
    } catch (IOException e) {
      throw new CliException("cannot write key file " + path + ": " + UserFile.reason(e), e);
    }
  }
}
