// [viewport width, viewport height, document width, document height]. One line.
JSON.stringify([innerWidth,innerHeight,Math.max(document.documentElement?document.documentElement.scrollWidth:0,document.body?document.body.scrollWidth:0),Math.max(document.documentElement?document.documentElement.scrollHeight:0,document.body?document.body.scrollHeight:0)])
