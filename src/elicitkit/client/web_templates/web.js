"use strict";
(() => {
  const body = document.body;
  const current = body.dataset.current;
  const told = body.dataset.told;
  let version = body.dataset.version;
  let leaving = false; // a form is being sent: its answer's page comes next, not a reload

  document.addEventListener("submit", (event) => {
    leaving = true;
    // After this turn, once the browser has taken the pressed button's value: no second send.
    setTimeout(() => event.target.querySelectorAll("button").forEach((button) => { button.disabled = true; }));
  });

  const offline = document.getElementById("offline");
  const live = document.getElementById("live");
  const notices = document.getElementById("notices");
  const queued = document.getElementById("queued");

  function show(state) {
    notices.replaceChildren(...state.notices.map((text) => {
      const item = document.createElement("li");
      item.textContent = text;
      return item;
    }));
    queued.textContent = queued.dataset.text.replace("{n}", state.queued);
    queued.hidden = state.queued === 0;
  }

  // The program behind the page has gone: this page says so, and only that.
  function stopped() {
    live.hidden = true;
    offline.hidden = false;
    body.classList.add("closed");
    document.querySelectorAll("button, input, select").forEach((element) => { element.disabled = true; });
  }

  // Long-poll the client: move on as soon as the question on this page is no longer the current
  // one, or the page has something new to say about the last answer.
  async function watch() {
    let unreachable = false;
    for (;;) {
      let state;
      try {
        const response = await fetch(`/events?since=${version}`, { cache: "no-store" });
        if (!response.ok) throw new Error(`status ${response.status}`);
        state = await response.json();
      } catch {
        if (leaving) return;
        unreachable = true;
        stopped();
        await new Promise((resolve) => setTimeout(resolve, 2000));
        continue;
      }
      if (leaving) return;
      if (state.closed) {
        stopped();
        return;
      }
      if (unreachable || state.current !== current || String(state.told) !== told) {
        location.replace(location.pathname);
        return;
      }
      version = state.version;
      show(state);
    }
  }

  // The waiting page's clock.
  const clock = document.getElementById("elapsed");
  if (clock) {
    const start = Date.now() - Number(clock.dataset.elapsed) * 1000;
    const two = (n) => String(n).padStart(2, "0");
    const tick = () => {
      const whole = Math.floor((Date.now() - start) / 1000);
      const hours = Math.floor(whole / 3600);
      const minutes = Math.floor((whole % 3600) / 60);
      const seconds = whole % 60;
      clock.textContent = hours ? `${hours}:${two(minutes)}:${two(seconds)}` : `${two(minutes)}:${two(seconds)}`;
    };
    tick();
    setInterval(tick, 1000);
  }

  // Multi-choice item limits, as a constraint the browser checks like any other.
  document.querySelectorAll("fieldset[data-min], fieldset[data-max]").forEach((set) => {
    const boxes = [...set.querySelectorAll("input[type=checkbox]")];
    const low = Number(set.dataset.min || 0);
    const high = set.dataset.max === undefined ? Infinity : Number(set.dataset.max);
    const check = () => {
      const ticked = boxes.filter((box) => box.checked).length;
      const counted = ticked > 0 || set.dataset.required === "true";
      const message = counted && ticked < low ? set.dataset.minText || `Choose at least ${low}.`
        : ticked > high ? set.dataset.maxText || `Choose at most ${high}.` : "";
      boxes.forEach((box) => box.setCustomValidity(""));
      if (boxes.length) boxes[0].setCustomValidity(message);
    };
    set.addEventListener("change", check);
    check();
  });

  watch();
})();
