{
  "targets": [
    {
      "target_name": "cuda_addon",
      "sources": ["src/addon.cc", "src/cudaDriver.cc"],
      "include_dirs": ["<!(node -p \"require('node-addon-api').include_dir\")"],
      "defines": ["NAPI_VERSION=8", "NAPI_CPP_EXCEPTIONS", "NODE_ADDON_API_DISABLE_DEPRECATED"],
      "cflags!": ["-fno-exceptions"],
      "cflags_cc!": ["-fno-exceptions"],
      "cflags_cc": ["-std=c++17", "-fexceptions", "-Wall", "-Wextra", "-fstack-protector-strong", "-D_FORTIFY_SOURCE=2"],
      "ldflags": ["-Wl,-z,relro,-z,now"],
      "libraries": ["-ldl"]
    }
  ]
}
