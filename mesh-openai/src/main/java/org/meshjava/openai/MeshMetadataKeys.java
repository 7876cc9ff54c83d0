package org.meshjava.openai;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.Iterator;
import java.util.List;

/**
 * The {@code metadata} keys a body's request is derived from (SPEC 70, {@code
 * granted_serve_request}), and the refusal of a key written as if it were one of them.
 *
 * <p>OpenAI's {@code metadata} is the caller's own, so keys mesh does not read pass untouched. But
 * a key that is nearly a mesh key ({@code joule_ceiling} or {@code Joule_Ceiling_UJ} for {@code
 * joule_ceiling_uj}, {@code fidelityFloor}, {@code fidelty_floor}) was meant as one: passed over,
 * the server's default ceiling or floor applies and the caller believes it set its own. Such a key
 * is refused, naming it and the keys that are read. A key is taken as meant for mesh when, folded
 * to lower case letters and digits, it is at most two edits from a folded mesh key (case,
 * separators, a letter or two off, {@code joule_ceiling} without its unit) or is a piece of one at
 * least {@value #PIECE} letters long ({@code fidelity}, {@code ceiling_uj}). A key that only shares
 * a word or the unit with one ({@code fidelity_notes}, {@code max_uj}, {@code
 * system_prompt_tokens}) is the caller's own: OpenAI serves it, so refusing it here would refuse a
 * client that works there.
 */
final class MeshMetadataKeys {
  /** The keys read, each exactly as written here. */
  static final List<String> READ = List.of("prompt_tokens", "fidelity_floor", "joule_ceiling_uj");

  /** The shortest piece of a folded mesh key taken as that key cut short. */
  private static final int PIECE = 8;

  private static final List<String> FOLDED = READ.stream().map(MeshMetadataKeys::fold).toList();

  private MeshMetadataKeys() {}

  /**
   * Refuses a key of {@code metadata} that is not one of {@link #READ} but is written as if it
   * were.
   *
   * @throws BindingException {@code INVALID_METADATA} naming the first such key
   */
  static void refuseNearMisses(JsonNode metadata) throws BindingException {
    for (Iterator<String> names = metadata.fieldNames(); names.hasNext(); ) {
      String key = names.next();
      if (!READ.contains(key) && meantForMesh(key)) {
        throw new BindingException(
            BindingException.Reason.INVALID_METADATA,
            "metadata." + key,
            "metadata."
                + key
                + " is not a key mesh reads, and looks meant as one: the keys read are "
                + String.join(", ", READ)
                + ", exactly as written (other keys are the caller's own and are not read)");
      }
    }
  }

  /** Whether {@code key}, not one of the keys read, looks written as one of them. */
  static boolean meantForMesh(String key) {
    String folded = fold(key);
    return FOLDED.stream()
        .anyMatch(
            k -> withinTwoEdits(folded, k) || (folded.length() >= PIECE && k.contains(folded)));
  }

  /**
   * Lower-case ASCII letters and digits only: case and separators ({@code _ - . space}) dropped.
   */
  private static String fold(String key) {
    StringBuilder b = new StringBuilder(Math.min(key.length(), 64));
    for (int i = 0; i < key.length(); i++) {
      char c = Character.toLowerCase(key.charAt(i));
      if ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9')) {
        b.append(c);
      }
    }
    return b.toString();
  }

  /** Whether the edit distance (insert, delete, replace) between {@code a} and {@code b} is ≤ 2. */
  private static boolean withinTwoEdits(String a, String b) {
    if (Math.abs(a.length() - b.length()) > 2) {
      return false;
    }
    int[] prev = new int[b.length() + 1];
    int[] row = new int[b.length() + 1];
    for (int j = 0; j <= b.length(); j++) {
      prev[j] = j;
    }
    for (int i = 1; i <= a.length(); i++) {
      row[0] = i;
      for (int j = 1; j <= b.length(); j++) {
        int replace = prev[j - 1] + (a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1);
        row[j] = Math.min(replace, Math.min(prev[j], row[j - 1]) + 1);
      }
      int[] t = prev;
      prev = row;
      row = t;
    }
    return prev[b.length()] <= 2;
  }
}
