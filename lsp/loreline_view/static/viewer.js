// Recall as you type: the project page asks the viewer for the memories that answer what is
// typed, a moment after the last key, and shows the server-rendered (escaped) list.
(function () {
  "use strict";
  const box = document.getElementById("recall");
  const out = document.getElementById("recall-hits");
  if (!box || !out) return;
  let timer = null;
  let asked = 0;
  box.addEventListener("input", function () {
    clearTimeout(timer);
    timer = setTimeout(async function () {
      const mine = ++asked;
      const query = box.value;
      if (!query.trim()) { out.replaceChildren(); return; }
      const params = new URLSearchParams({ key: box.dataset.project, q: query });
      const answer = await fetch("/recall?" + params.toString(), { credentials: "same-origin" });
      if (mine !== asked || !answer.ok) return;
      const parsed = new DOMParser().parseFromString(await answer.text(), "text/html");
      out.replaceChildren(...parsed.body.childNodes);
    }, 120);
  });
})();
