package org.meshjava.journal.internal;

import java.io.IOException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NotDirectoryException;
import java.nio.file.Path;
import java.nio.file.attribute.FileAttribute;

/**
 * Making a folder and the folders missing above it so that what stands in the way is told apart
 * from a name already taken. The JDK's {@link Files#createDirectories} fails with {@link
 * FileAlreadyExistsException} where a file (or a link, a pipe) stands where one of the folders
 * goes, which is also what making a new file fails with where the name is taken; the words for the
 * two differ ("not a folder" against "already there", see {@link FailureWords}), so this fails with
 * {@link NotDirectoryException} naming what is in the way instead. Stateless.
 */
public final class Folders {
  private Folders() {}

  /**
   * Makes {@code dir} and every missing folder above it, each with {@code attributes}; folders that
   * are there are kept as they are, one made meanwhile by another too.
   *
   * @throws NotDirectoryException naming what stands where {@code dir} or a folder above it goes,
   *     where it is not a folder
   * @throws IOException as {@link Files#createDirectories}
   */
  public static void create(Path dir, FileAttribute<?>... attributes) throws IOException {
    try {
      Files.createDirectories(dir, attributes);
    } catch (FileAlreadyExistsException inTheWay) {
      // The JDK throws this only where what is there is no folder.
      throw notAFolder(inTheWay.getFile(), inTheWay);
    } catch (FileSystemException e) {
      // A file further up (notes.txt in notes.txt/keys/inner) fails the first folder made beneath
      // it with "Not a directory", naming that folder, which is not there: the lowest name that is
      // there is what stands in the way, where it is no folder (a link is followed, as the JDK
      // does for the folders it keeps).
      Path there = dir.toAbsolutePath();
      while (there != null && !Files.exists(there, LinkOption.NOFOLLOW_LINKS)) {
        there = there.getParent();
      }
      if (there == null || Files.isDirectory(there)) {
        throw e;
      }
      throw notAFolder(there.toString(), e);
    }
  }

  private static NotDirectoryException notAFolder(String file, IOException cause) {
    NotDirectoryException e = new NotDirectoryException(file);
    e.initCause(cause);
    return e;
  }
}
