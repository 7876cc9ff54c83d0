package org.meshjava.core.weights;

import java.util.Objects;
import org.jspecify.annotations.Nullable;
import org.meshjava.core.ReasonedException;

/**
 * Thrown by {@link ModelDirectory#digest} when a model directory cannot be given a weights digest.
 * Carries a {@link Reason} and the path (relative to the directory, where there is one) that caused
 * it; match on the reason, not on the message.
 */
public final class WeightsDigestException extends ReasonedException {
  private static final long serialVersionUID = 1L;

  /** Why a directory was refused. Stable; match on it. */
  public enum Reason {
    /** The directory has no {@code config.json}. */
    NO_CONFIG,
    /** Neither {@code model.safetensors} nor {@code model.safetensors.index.json} is present. */
    UNKNOWN_LAYOUT,
    /** Both are present, so which files the forward pass reads is not determined. */
    AMBIGUOUS_LAYOUT,
    /** The index is not JSON with a non-empty {@code weight_map} of text values. */
    MALFORMED_INDEX,
    /** A path the index names is absolute, has a {@code ..} segment, or resolves outside. */
    PATH_ESCAPES,
    /** A file the layout needs does not exist or is not a regular file. */
    MISSING_FILE,
    /** Reading failed. */
    IO_ERROR
  }

  private final String path;

  /**
   * Creates the exception. Package-private: only {@link ModelDirectory} refuses a directory, so a
   * caller only ever catches this exception.
   */
  WeightsDigestException(Reason reason, String path, String detail, @Nullable Throwable cause) {
    super(reason, detail, reason + " (" + path + "): " + detail, cause);
    this.path = Objects.requireNonNull(path, "path");
  }

  /** Creates the exception with no cause. */
  WeightsDigestException(Reason reason, String path, String detail) {
    this(reason, path, detail, null);
  }

  /** Why. */
  @Override
  public Reason reason() {
    return (Reason) super.reason();
  }

  /** The file concerned, relative to the model directory ({@code .} for the directory). */
  public String path() {
    return path;
  }
}
