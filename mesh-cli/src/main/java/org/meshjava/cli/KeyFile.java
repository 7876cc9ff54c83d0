package org.meshjava.cli;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.HexFormat;
import java.util.Set;
import org.meshjava.core.crypto.SigningKey;

/**
 * A key file: the 32-byte Ed25519 seed as 64 lowercase hex digits and a newline, readable by its
 * owner only (mode 0600 where the filesystem has POSIX permissions). The {@code did:key} is derived
 * from it, never stored.
 */
final class KeyFile {
  private KeyFile() {}

  static SigningKey read(Path path) throws CliException {
    String text = UserFile.readText(path, "key file");
    try {
      return SigningKey.fromSeedHex(text);
    } catch (IllegalArgumentException e) {
      throw new CliException("key file " + path + " does not hold a 64-hex-digit Ed25519 seed", e);
    }
  }

  static void write(Path path, SigningKey key, boolean overwrite) throws CliException {
    byte[] text =
        (HexFormat.of().formatHex(key.exportSeed()) + "\n").getBytes(StandardCharsets.US_ASCII);
    try {
      Path parent = path.toAbsolutePath().getParent();
      if (parent != null) {
        Files.createDirectories(parent);
      }
      if (overwrite) {
        Files.deleteIfExists(path);
      }
      boolean posix =
          Files.getFileStore(parent != null ? parent : Path.of("."))
              .supportsFileAttributeView("posix");
      if (posix) {
        Set<PosixFilePermission> owner = PosixFilePermissions.fromString("rw-------");
        Files.createFile(path, PosixFilePermissions.asFileAttribute(owner));
      } else {
        Files.createFile(path);
      }
      Files.write(path, text, StandardOpenOption.TRUNCATE_EXISTING);
    } catch (FileAlreadyExistsException e) {
      throw new CliException(path + " exists; refusing to overwrite a key (use --force)", e);
    } catch (IOException e) {
      throw new CliException("cannot write key file " + path + ": " + UserFile.reason(e), e);
    }
  }
}
