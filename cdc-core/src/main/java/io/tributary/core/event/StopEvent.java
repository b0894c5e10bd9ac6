package io.tributary.core.event;

/** STOP_EVENT (3): the server stopped; the body is empty. */
public record StopEvent() implements EventBody {
}
