package org.meshjava.openai;

import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * The environment variable an upstream's bearer token is read from ({@code mesh serve}'s {@code
 * api_key_env}, the Spring starter's {@code api-key-env}), held to one rule for both: the variable
 * must hold a key a header can carry, and a refusal never repeats the value, nor a name that may be
 * the key itself.
 */
public final class ApiKeyVariable {
  /** An environment variable's name as shells and their users write one: {@code OPENAI_API_KEY}. */
  private static final Pattern CONVENTIONAL_NAME = Pattern.compile("[A-Z_][A-Z0-9_]*");

  private ApiKeyVariable() {}

  /**
   * The bearer token that environment variable {@code name} holds ({@code value}, as {@link
   * System#getenv(String)} gave it), refused unless it is one: unset, empty or blank (an {@code
   * OPENAI_API_KEY=} line left in an environment file) it would be sent as {@code Authorization:
   * Bearer } and every request refused by the upstream, far from the cause; with a line break or
   * another control character it cannot go in a header at all, and every request would fail. The
   * value itself is never named, nor a name that is not one of capitals, digits and {@code _}: such
   * a "name" is most often the key itself, written where its variable's name belongs, and a refusal
   * quoting it would put the key in a log.
   *
   * @param setting the setting that names the variable, as the operator wrote it ({@code
   *     api_key_env}), said in place of a name that is not repeated
   * @throws IllegalArgumentException naming the variable (as above) and what is wrong with it, or
   *     saying that {@code setting} names none (empty); a caller puts the setting's place before it
   */
  public static String value(String setting, String name, @Nullable String value) {
    if (name.isBlank()) {
      throw new IllegalArgumentException(
          setting + " is empty; name the environment variable that holds the key");
    }
    String variable =
        "environment variable "
            + (CONVENTIONAL_NAME.matcher(name).matches()
                ? name
                : "that "
                    + setting
                    + " names (not repeated: not a name of capitals, digits and _, it may be the"
                    + " key itself)");
    if (value == null) {
      throw new IllegalArgumentException(variable + " is not set");
    }
    if (value.isBlank()) {
      throw new IllegalArgumentException(
          variable
              + " is set but "
              + (value.isEmpty() ? "empty" : "blank")
              + "; set it to the key");
    }
    if (value.chars().anyMatch(Character::isISOControl)) {
      throw new IllegalArgumentException(
          variable
              + " holds a line break or another control character, which no header can carry"
              + " (a key read from a file with its newline?)");
    }
    return value;
  }
}
