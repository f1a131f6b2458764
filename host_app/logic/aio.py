"""A very small coroutine driver for callback-based event loops (Qt's, or a fake clock in tests).

Operations are written as `async def` coroutines that await `Future`s; the Qt edge resolves those
futures from signals and timers. A `Task` can have an exception thrown into it at any await
(cancellation, deadline), so that its `finally` blocks stop the matching browser work.
"""

from __future__ import annotations

from collections.abc import Callable, Coroutine, Generator
from typing import Any, Generic, Protocol, TypeVar

T = TypeVar("T")
D = TypeVar("D")


class Cancelled(BaseException):
    """Thrown into a task whose request was cancelled (a BaseException: nothing catches it by
    accident)."""


class TimerHandle(Protocol):
    def cancel(self) -> None: ...


class Loop(Protocol):
    def call_later(self, delay: float, callback: Callable[[], None]) -> TimerHandle: ...

    def time(self) -> float: ...


class Future(Generic[T]):
    __slots__ = ("_callbacks", "_done", "_exc", "_result")

    def __init__(self) -> None:
        self._done = False
        self._result: T | None = None
        self._exc: BaseException | None = None
        self._callbacks: list[Callable[[Future[T]], None]] = []

    def done(self) -> bool:
        return self._done

    def set_result(self, value: T) -> None:
        if self._done:
            return
        self._done = True
        self._result = value
        self._fire()

    def set_exception(self, exc: BaseException) -> None:
        if self._done:
            return
        self._done = True
        self._exc = exc
        self._fire()

    def _fire(self) -> None:
        callbacks, self._callbacks = self._callbacks, []
        for cb in callbacks:
            cb(self)

    def add_done_callback(self, cb: Callable[[Future[T]], None]) -> None:
        if self._done:
            cb(self)
        else:
            self._callbacks.append(cb)

    def remove_done_callback(self, cb: Callable[[Future[T]], None]) -> None:
        if cb in self._callbacks:
            self._callbacks.remove(cb)

    def result(self) -> T:
        if not self._done:
            raise RuntimeError("future not done")
        if self._exc is not None:
            raise self._exc
        return self._result  # type: ignore[return-value]

    def __await__(self) -> Generator[Future[T], None, T]:
        if not self._done:
            yield self
        return self.result()


class Task:
    """Runs one coroutine; `throw()` raises an exception at its current await."""

    def __init__(
        self,
        coro: Coroutine[Future[Any], None, Any],
        on_done: Callable[[Task], None] | None = None,
    ) -> None:
        self._coro = coro
        self._waiting: Future[Any] | None = None
        self._on_done = on_done
        self.done = False
        self.result: Any = None
        self.exception: BaseException | None = None
        self._running = False
        self._pending_throw: BaseException | None = None

    def start(self) -> None:
        self._step(None, None)

    def _step(self, value: Any, exc: BaseException | None) -> None:
        if self.done:
            return
        self._running = True
        try:
            fut = self._coro.throw(exc) if exc is not None else self._coro.send(value)
        except StopIteration as stop:
            self._finish(stop.value, None)
            return
        except BaseException as error:
            self._finish(None, error)
            return
        finally:
            self._running = False
        if self._pending_throw is not None:
            pending, self._pending_throw = self._pending_throw, None
            self._step(None, pending)
            return
        self._waiting = fut
        fut.add_done_callback(self._wakeup)

    def _wakeup(self, fut: Future[Any]) -> None:
        if fut is not self._waiting:
            return
        self._waiting = None
        try:
            value = fut.result()
        except BaseException as exc:
            self._step(None, exc)
        else:
            self._step(value, None)

    def throw(self, exc: BaseException) -> None:
        if self.done:
            return
        if self._running:
            self._pending_throw = exc
            return
        waiting, self._waiting = self._waiting, None
        if waiting is not None:
            waiting.remove_done_callback(self._wakeup)
            # release what the await held (a sleep's timer, for one)
            waiting.set_exception(Cancelled())
        self._step(None, exc)

    def _finish(self, result: Any, exc: BaseException | None) -> None:
        self.done = True
        self.result = result
        self.exception = exc
        if self._on_done is not None:
            self._on_done(self)


def sleep(loop: Loop, seconds: float) -> Future[None]:
    fut: Future[None] = Future()
    handle = loop.call_later(max(0.0, seconds), lambda: fut.set_result(None))
    fut.add_done_callback(lambda _f: handle.cancel())
    return fut


def within(loop: Loop, fut: Future[T], seconds: float, default: D) -> Future[T | D]:
    """`fut`'s result, or `default` when it has none after `seconds` (for engine callbacks that
    may never come, such as a script sent to a frame the page is just replacing)."""
    out: Future[T | D] = Future()

    def settle(value: T | D) -> None:
        if not out.done():
            out.set_result(value)

    handle = loop.call_later(max(0.0, seconds), lambda: settle(default))

    def done(f: Future[T]) -> None:
        handle.cancel()
        try:
            value = f.result()
        except BaseException as exc:
            out.set_exception(exc)
        else:
            settle(value)

    fut.add_done_callback(done)
    return out


class Lock:
    """FIFO lock for tasks (one operation at a time on a session's page)."""

    def __init__(self) -> None:
        self._locked = False
        self._waiters: list[Future[None]] = []

    @property
    def locked(self) -> bool:
        """An operation holds the lock (or is about to be handed it)."""
        return self._locked

    async def acquire(self) -> None:
        if not self._locked:
            self._locked = True
            return
        fut: Future[None] = Future()
        self._waiters.append(fut)
        try:
            await fut
        except BaseException:
            if fut in self._waiters:
                self._waiters.remove(fut)
            elif fut.done():
                self.release()
            raise

    def release(self) -> None:
        while self._waiters:
            fut = self._waiters.pop(0)
            if not fut.done():
                fut.set_result(None)
                return
        self._locked = False


def spawn(coro: Coroutine[Any, None, T]) -> Future[T]:
    """Run a helper coroutine as its own task; its result resolves the returned future."""
    fut: Future[T] = Future()

    def done(task: Task) -> None:
        if task.exception is not None:
            fut.set_exception(task.exception)
        else:
            fut.set_result(task.result)

    Task(coro, done).start()
    return fut
