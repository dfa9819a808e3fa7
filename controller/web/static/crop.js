// The camera's crop beside the table's question: when the table asks the referee about an
// observation (a tile it could not read, or was unsure of), the console shows the tile as the
// camera saw it, cut from the very frame. Crops are served to a signed-in referee only
// (/api/crop/<id>); a question the camera did not raise (entered by hand) has none.
"use strict";
function showCrops(v) {
  if (v !== "/console" || !face.referee) return;
  document.querySelectorAll("#questions li.question[data-pending]").forEach(li => {
    if (li.dataset.crop) return;  // asked for already (shown, or there is none)
    li.dataset.crop = "asked";
    fetch(`/api/crop/${li.dataset.pending}`, {cache: "no-store"}).then(async r => {
      if (r.status !== 200) { li.dataset.crop = "none"; return; }  // 204: the camera has none
      const img = document.createElement("img");
      img.className = "crop";
      img.alt = `the camera's view of question #${li.dataset.pending}`;
      img.onload = () => { li.dataset.crop = "shown"; };
      img.src = URL.createObjectURL(await r.blob());
      const first = li.querySelector("span");
      if (first) first.after(img); else li.prepend(img);
    });
  });
}
(window.faceParts = window.faceParts || []).push(showCrops);
