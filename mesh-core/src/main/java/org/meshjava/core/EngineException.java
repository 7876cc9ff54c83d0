package org.meshjava.core;

import org.jspecify.annotations.Nullable;

/** Thrown by a {@link ServingEngine} that could not serve a request. Nothing is sealed for it. */
public class EngineException extends Exception {
  private static final long serialVersionUID = 1L;

  /** Creates the exception with a reason. */
  public EngineException(String message) {
    super(message);
  }

  /** Creates the exception with a reason and a cause. */
  public EngineException(String message, @Nullable Throwable cause) {
    super(message, cause);
  }
}
